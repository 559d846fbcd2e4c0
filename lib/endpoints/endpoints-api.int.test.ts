import { beforeAll, describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/endpoints/route";
import * as item from "@/app/api/v1/endpoints/[id]/route";
import * as rotate from "@/app/api/v1/endpoints/[id]/rotate-secret/route";
import * as stats from "@/app/api/v1/endpoints/[id]/stats/route";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
let globex: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
});

const create = (apiKey: string, body: unknown) => callRoute(collection.POST, { method: "POST", apiKey, body });

describe("POST /api/v1/endpoints", () => {
  it("creates a standard-webhooks endpoint with a generated secret shown once, and defaults", async () => {
    const res = await create(acme.apiKey, { name: "Orders", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/hook" });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^ep_[0-9a-z]{25}$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(res.body).toMatchObject({
      name: "Orders", provider: "standard-webhooks", paused: false, maxAttempts: 8, retryBaseSeconds: 5,
      timeoutMs: 15000, maxBodyBytes: 1048576, toleranceSeconds: 300, alertPendingAgeSeconds: null, alertEmail: null,
      ingestUrl: `http://inbox.test/in/${res.body.id}`,
    });
    const again = await callRoute(item.GET, { apiKey: acme.apiKey, params: { id: res.body.id } });
    expect(again.status).toBe(200);
    expect(again.body.secret).toBeUndefined();
    expect(JSON.stringify(again.body)).not.toContain(res.body.secret);
    const [row] = await getSql()`select secret_encrypted from endpoints where id = ${res.body.id}`;
    expect(row!.secret_encrypted).not.toContain(res.body.secret.slice(6));
  });

  it("creates a stripe endpoint awaiting its secret when none is given, and never echoes a given secret", async () => {
    // Awaiting its secret (API.md): lib/quarantine/awaiting-secret-api.int.test.ts follows what arrives meanwhile.
    const missing = await create(acme.apiKey, { name: "Stripe", provider: "stripe", destinationUrl: "http://127.0.0.1:9/" });
    expect(missing.status).toBe(201);
    expect(missing.body).toMatchObject({ awaitingSecret: true });
    const ok = await create(acme.apiKey, { name: "Stripe", provider: "stripe", secret: "whsec_stripe_given", destinationUrl: "http://127.0.0.1:9/" });
    expect(ok.status).toBe(201);
    expect(JSON.stringify(ok.body)).not.toContain("whsec_stripe_given");
    expect(ok.body.awaitingSecret).toBe(false);
  });

  it("answers 400 with a clear message for bad input", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: "x", provider: "nope", destinationUrl: "http://127.0.0.1/" }, /provider/],
      [{ name: "x", provider: "none", destinationUrl: "ftp://example.com/" }, /http or https/],
      [{ name: "", provider: "none", destinationUrl: "http://127.0.0.1/" }, /name/],
      [{ name: "x", provider: "none", destinationUrl: "http://127.0.0.1/", retryBaseSeconds: 0 }, /retryBaseSeconds/],
      [{ name: "x", provider: "generic-hmac", secret: "s", destinationUrl: "http://127.0.0.1/" }, /genericHmac/],
      [{ name: "x", provider: "none", destinationUrl: "http://127.0.0.1/", surprise: 1 }, /Unknown field/],
      ["{not json", /not valid JSON/],
    ];
    for (const [body, message] of cases) {
      const res = await create(acme.apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
  });

  it("refuses a private destination unless the operator allows it", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    try {
      const res = await create(acme.apiKey, { name: "x", provider: "none", destinationUrl: "http://169.254.169.254/latest" });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/private or internal/);
    } finally {
      process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    }
  });
});

describe("API key authentication", () => {
  it("answers 401 without a key, with a bad key, and with a revoked-looking key", async () => {
    for (const apiKey of [null, "nope", "inbox_sk_doesnotexist"]) {
      const res = await callRoute(collection.GET, { apiKey });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
    }
  });

  it("answers 404 for another organization's endpoint on every route", async () => {
    const theirs = await create(globex.apiKey, { name: "Theirs", provider: "none", destinationUrl: "http://127.0.0.1:9/" });
    const params = { id: theirs.body.id };
    const answers = [
      await callRoute(item.GET, { apiKey: acme.apiKey, params }),
      await callRoute(item.PATCH, { method: "PATCH", apiKey: acme.apiKey, params, body: { name: "mine now" } }),
      await callRoute(item.DELETE, { method: "DELETE", apiKey: acme.apiKey, params }),
      await callRoute(stats.GET, { apiKey: acme.apiKey, params }),
      await callRoute(rotate.POST, { method: "POST", apiKey: acme.apiKey, params, body: {} }),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 404]);
    const list = await callRoute(collection.GET, { apiKey: acme.apiKey, path: "/?limit=200" });
    expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(theirs.body.id);
    const still = await callRoute(item.GET, { apiKey: globex.apiKey, params });
    expect(still.body.name).toBe("Theirs");
  });
});

describe("endpoint lifecycle", () => {
  it("lists with cursor pagination, patches, rotates, reports stats and deletes", async () => {
    const org = await createOrganizationFixture("Paging");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await create(org.apiKey, { name: `E${i}`, provider: "svix", destinationUrl: "http://127.0.0.1:9/" })).body.id);
    }
    const first = await callRoute(collection.GET, { apiKey: org.apiKey, path: "/?limit=2" });
    expect(first.body.data).toHaveLength(2);
    const seen = [...first.body.data];
    let cursor = first.body.nextCursor;
    while (cursor) {
      const page = await callRoute(collection.GET, { apiKey: org.apiKey, path: `/?limit=2&cursor=${cursor}` });
      seen.push(...page.body.data);
      cursor = page.body.nextCursor;
    }
    expect(seen.map((e) => e.id)).toEqual([...ids].reverse());
    const badLimit = await callRoute(collection.GET, { apiKey: org.apiKey, path: "/?limit=500" });
    expect(badLimit.status).toBe(400);

    const id = ids[0]!;
    const patched = await callRoute(item.PATCH, {
      method: "PATCH", apiKey: org.apiKey, params: { id },
      body: { name: "Renamed", paused: true, maxAttempts: 3, alertPendingAgeSeconds: 600, alertEmail: "ops@example.test" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Renamed", paused: true, maxAttempts: 3, alertPendingAgeSeconds: 600, alertEmail: "ops@example.test" });

    const rotated = await callRoute(rotate.POST, { method: "POST", apiKey: org.apiKey, params: { id }, body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(Date.parse(rotated.body.previousSecretValidUntil) - Date.now()).toBeGreaterThan(23 * 3600_000);

    const s = await callRoute(stats.GET, { apiKey: org.apiKey, params: { id } });
    expect(s.body).toEqual({ pending: 0, delivering: 0, delivered: 0, dead: 0, oldestPendingAgeSeconds: 0, receivedLastHour: 0, deliveredLastHour: 0 });

    expect((await callRoute(item.DELETE, { method: "DELETE", apiKey: org.apiKey, params: { id } })).status).toBe(204);
    expect((await callRoute(item.GET, { apiKey: org.apiKey, params: { id } })).status).toBe(404);
  });
});
