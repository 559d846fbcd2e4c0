// outboundSecret is checked when saved (REST create and PATCH; the dashboard goes through the same
// schema): a secret the Standard Webhooks signer cannot use is a 400 naming the field, not a
// delivery that dies later with "cannot sign".
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import * as endpointItem from "@/app/api/v1/endpoints/[id]/route";
import * as endpointList from "@/app/api/v1/endpoints/route";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { CreateEndpointInput } from "./endpoint-input";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  org = await createOrganizationFixture();
});

const whsec = (bytes: number) => `whsec_${randomBytes(bytes).toString("base64")}`;
const BAD = ["!!!", "", "whsec_", "whsec_!!!!", whsec(23), whsec(65), whsec(24).replace(/=*$/, "") + "=", "whsec_" + "A".repeat(33), `whsec_${randomBytes(24).toString("base64url").replace(/^./, "-")}`];
const GOOD = [whsec(24), whsec(32), whsec(64), randomBytes(32).toString("base64"), "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"];

const create = (outboundSecret: unknown) =>
  callRoute(endpointList.POST, { method: "POST", apiKey: org.apiKey, body: { name: "Signed", provider: "none", destinationUrl: "http://127.0.0.1:9/", outboundSecret } });

describe("refuses an outbound secret the signer cannot use", () => {
  it("answers 400 naming outboundSecret on create and on update", async () => {
    const endpoint = await create(null);
    expect(endpoint.status).toBe(201);
    for (const outboundSecret of BAD) {
      const created = await create(outboundSecret);
      expect(created.status, outboundSecret).toBe(400);
      expect(created.body.error.message, outboundSecret).toMatch(/outboundSecret must be a Standard Webhooks secret/);
      const updated = await callRoute(endpointItem.PATCH, { method: "PATCH", apiKey: org.apiKey, params: { id: endpoint.body.id }, body: { outboundSecret } });
      expect(updated.status, outboundSecret).toBe(400);
      expect(updated.body.error.message).toMatch(/outboundSecret must be/);
    }
  });

  it("accepts whsec_ + base64 of 24 to 64 bytes (and bare base64, as the signer does), and null to stop signing", async () => {
    for (const outboundSecret of GOOD) {
      const created = await create(outboundSecret);
      expect(created.status, outboundSecret).toBe(201);
      expect(created.body.signsOutbound).toBe(true);
      const cleared = await callRoute(endpointItem.PATCH, { method: "PATCH", apiKey: org.apiKey, params: { id: created.body.id }, body: { outboundSecret: null } });
      expect(cleared.status).toBe(200);
      expect(cleared.body.signsOutbound).toBe(false);
    }
  });

  it("accepts exactly what the standardwebhooks library can sign with", () => {
    for (const secret of [...GOOD, ...BAD]) {
      const accepted = CreateEndpointInput.safeParse({ name: "x", provider: "none", destinationUrl: "http://x/", outboundSecret: secret }).success;
      if (accepted) expect(() => new Webhook(secret).sign("msg_1", new Date(), "{}"), secret).not.toThrow();
    }
    for (const secret of ["!!!", "whsec_!!!!", "whsec_"]) expect(() => new Webhook(secret).sign("msg_1", new Date(), "{}"), secret).toThrow();
  });
});
