import { describe, expect, it } from "vitest";
import { CreateEndpointInput, UpdateEndpointInput } from "@/lib/endpoints/endpoint-input";
import { resolveSecret } from "@/lib/endpoints/endpoint-secrets";
import { DomainError, NotFoundError, ValidationError } from "@/lib/errors";
import { parseInput } from "@/lib/validation";
import { formMessage } from "./form-message";

function refusal(work: () => unknown): DomainError {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("not refused");
}

const base = { name: "Orders", provider: "none", destinationUrl: "http://127.0.0.1:9/" };

describe("a refused form reads as a sentence in the form's words", () => {
  it("drops the API's field prefix from a hand-written message and names the provider as people know it", () => {
    const error = refusal(() => resolveSecret("discord", "not-a-key"));
    expect(error.message).toMatch(/^secret: /); // REST still names its field
    expect(formMessage(error)).toBe("A Discord public key is the 64 hex characters shown under General Information → Public Key.");
  });

  it("puts the form's label where the message named the API's field", () => {
    expect(formMessage(new ValidationError("destinationUrl must use http or https."))).toBe("Destination URL must use http or https.");
    expect(formMessage(refusal(() => parseInput(UpdateEndpointInput, { alertEmail: "not-an-address" })))).toBe("Alert email must be an email address");
    expect(formMessage(refusal(() => parseInput(CreateEndpointInput, { ...base, name: "" })))).toBe("Name must not be empty");
    expect(formMessage(refusal(() => parseInput(CreateEndpointInput, { ...base, provider: "generic-hmac", genericHmac: { header: "x sig" } })))).toBe(
      "Signature header must be a header name",
    );
  });

  it("gives a library's own message its subject instead of a raw prefix", () => {
    const error = refusal(() => parseInput(CreateEndpointInput, { ...base, maxAttempts: 99 }));
    expect(error.message).toMatch(/^maxAttempts: /);
    expect(formMessage(error)).toMatch(/^Max attempts: too big/);
  });

  it("leaves messages that name no field, and other errors, as they are", () => {
    expect(formMessage(new ValidationError("The current password is wrong."))).toBe("The current password is wrong.");
    expect(formMessage(new NotFoundError("Endpoint"))).toBe("Endpoint not found.");
  });
});
