import { describe, expect, it } from "vitest";
import { UpdateEndpointInput } from "./endpoint-input";
import { endpointChangesFromForm } from "./endpoint-changes-from-form";

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
};

describe("the settings form becomes a PATCH the endpoint verbs accept", () => {
  it("sends numbers as numbers and leaves out fields the form does not carry", () => {
    const changes = endpointChangesFromForm(form({ name: " Orders ", destinationUrl: "http://127.0.0.1:9/", retryBaseSeconds: "3600", timeoutMs: "5000", maxBodyBytes: "" }));
    expect(changes).toEqual({ name: "Orders", destinationUrl: "http://127.0.0.1:9/", retryBaseSeconds: 3600, timeoutMs: 5000 });
    expect(UpdateEndpointInput.parse(changes)).toEqual(changes);
  });

  it("turns alerts off with empty fields, and on with values", () => {
    expect(endpointChangesFromForm(form({ alertPendingAgeSeconds: "", alertEmail: " " }))).toEqual({ alertPendingAgeSeconds: null, alertEmail: null });
    expect(endpointChangesFromForm(form({ alertPendingAgeSeconds: "300", alertEmail: "ops@example.test" }))).toEqual({ alertPendingAgeSeconds: 300, alertEmail: "ops@example.test" });
  });

  it("lets the endpoint verbs refuse what is not a number", () => {
    const result = UpdateEndpointInput.safeParse(endpointChangesFromForm(form({ maxAttempts: "many" })));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["maxAttempts"]);
  });

  it("sets the outbound signing secret when typed, keeps it when left empty, removes it when asked", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    expect(endpointChangesFromForm(form({ outboundSecret: ` ${secret} ` }))).toEqual({ outboundSecret: secret });
    expect(endpointChangesFromForm(form({ outboundSecret: "" }))).toEqual({});
    expect(endpointChangesFromForm(form({ outboundSecret: "", stopOutboundSigning: "on" }))).toEqual({ outboundSecret: null });
    expect(UpdateEndpointInput.parse(endpointChangesFromForm(form({ outboundSecret: secret })))).toEqual({ outboundSecret: secret });
  });
});
