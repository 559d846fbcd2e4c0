// The REST API for provider-specific settings: Meta's verifyToken (create/patch, kept encrypted,
// never returned), public keys as secrets (Discord, SendGrid), and nothing of one provider's settings
// shown or kept for another.
import { generateKeyPairSync } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/endpoints/route";
import * as item from "@/app/api/v1/endpoints/[id]/route";
import * as rotate from "@/app/api/v1/endpoints/[id]/rotate-secret/route";
import { getSql } from "@/db";
import { getIngestEndpoint } from "@/lib/endpoints/endpoint-cache";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let apiKey: string;
beforeAll(async () => {
  ({ apiKey } = await createOrganizationFixture("Settings"));
});

const create = (body: unknown) => callRoute(collection.POST, { method: "POST", apiKey, body });
const patch = (id: string, body: unknown) => callRoute(item.PATCH, { method: "PATCH", apiKey, params: { id }, body });
const stored = async (id: string) => (await getSql()`select generic_hmac from endpoints where id = ${id}`)[0]!.generic_hmac;
const destination = "http://127.0.0.1:9/";

describe("meta's verifyToken", () => {
  it("is taken at creation, kept encrypted, never returned, and read by ingest", async () => {
    const res = await create({ name: "Meta", provider: "meta", secret: "app-secret", verifyToken: "meatpacking-district", destinationUrl: destination });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ hasVerifyToken: true, genericHmac: null });
    expect(JSON.stringify(res.body)).not.toContain("meatpacking-district");
    expect(JSON.stringify(await stored(res.body.id))).not.toContain("meatpacking-district");
    expect((await getIngestEndpoint(res.body.id))!.verifyToken).toBe("meatpacking-district");
  });

  it("is changed and removed with PATCH, kept across other changes, and dropped when the provider changes", async () => {
    const { body } = await create({ name: "Meta", provider: "meta", secret: "app-secret", destinationUrl: destination });
    expect(body.hasVerifyToken).toBe(false);
    expect((await patch(body.id, { verifyToken: "first-token" })).body.hasVerifyToken).toBe(true);
    expect((await patch(body.id, { name: "Meta pages" })).body.hasVerifyToken).toBe(true);
    expect((await patch(body.id, { verifyToken: null })).body.hasVerifyToken).toBe(false);
    await patch(body.id, { verifyToken: "second-token" });
    const moved = await patch(body.id, { provider: "github" });
    expect(moved.body).toMatchObject({ provider: "github", hasVerifyToken: false, genericHmac: null });
    expect(await stored(body.id)).toBeNull();
  });

  it("is refused for a provider without a GET handshake", async () => {
    const res = await create({ name: "GH", provider: "github", secret: "s", verifyToken: "t", destinationUrl: destination });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/verifyToken/);
  });
});

describe("public keys as secrets", () => {
  const discordKey = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("hex");
  const sendgridKey = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).publicKey.export({ format: "der", type: "spki" }).toString("base64");

  it("accepts a Discord hex key and a SendGrid base64 key, and refuses what does not parse at create, rotate and provider change", async () => {
    expect((await create({ name: "D", provider: "discord", secret: discordKey, destinationUrl: destination })).status).toBe(201);
    const sendgrid = await create({ name: "S", provider: "sendgrid", secret: sendgridKey, destinationUrl: destination });
    expect(sendgrid.status).toBe(201);

    const bad = await create({ name: "D", provider: "discord", secret: "shared-secret", destinationUrl: destination });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/64 hex/);
    const rotated = await callRoute(rotate.POST, { method: "POST", apiKey, params: { id: sendgrid.body.id }, body: { secret: discordKey } });
    expect(rotated.status).toBe(400);
    expect(rotated.body.error.message).toMatch(/verification key/);

    const github = await create({ name: "G", provider: "github", secret: "gh-secret", destinationUrl: destination });
    const switched = await patch(github.body.id, { provider: "discord" });
    expect(switched.status).toBe(400);
    expect(switched.body.error.message).toMatch(/64 hex/);
    expect((await patch(github.body.id, { provider: "discord", secret: discordKey })).status).toBe(200);
  });
});
