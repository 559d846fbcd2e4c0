// The REST wrapper's shared rules (API.md "Tenancy"), through real v1 route handlers: bodies over
// 1 MiB get 413 without being read, and control characters anywhere in a request get 400, never 500.
import { beforeAll, describe, expect, it } from "vitest";
import * as deliveries from "@/app/api/v1/deliveries/route";
import * as delivery from "@/app/api/v1/deliveries/[id]/route";
import * as bulkReplay from "@/app/api/v1/deliveries/replay/route";
import * as replayOne from "@/app/api/v1/deliveries/[id]/replay/route";
import * as collection from "@/app/api/v1/endpoints/route";
import * as item from "@/app/api/v1/endpoints/[id]/route";
import { REST_MAX_BODY_BYTES } from "@/lib/http/rest-body";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  org = await createOrganizationFixture();
});

/** POSTs a streamed body to the create-endpoint route, counting the bytes the route pulls from it. */
async function postStream(chunks: (index: number) => Uint8Array | null, headers: Record<string, string> = {}) {
  let pulled = 0;
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks(index++);
      if (!chunk) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const request = new Request("http://inbox.test/api/v1/endpoints", {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json", ...headers },
    duplex: "half",
  } as RequestInit);
  const response = await collection.POST(request, { params: Promise.resolve({}) });
  return { status: response.status, body: await response.json(), pulled: () => pulled };
}

const KiB = 1024;
/** 4 MiB in 64 KiB chunks: far past the limit, and finite, so a route that reads it all fails instead of hanging. */
const endless = (index: number) => (index < 64 ? new Uint8Array(64 * KiB).fill(0x20) : null);

describe("REST bodies over 1 MiB", () => {
  it("are refused with 413 on a declared Content-Length before a byte is read", async () => {
    const res = await postStream(endless, { "content-length": String(REST_MAX_BODY_BYTES + 1) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(res.body.error.message).toMatch(/1 MiB/);
    expect(res.pulled()).toBeLessThanOrEqual(64 * KiB); // a stream may pre-fill one chunk; the route reads none
  });

  it("are refused with 413 when streamed without a length, reading no more than the limit and a chunk", async () => {
    const res = await postStream(endless);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(res.pulled()).toBeLessThanOrEqual(REST_MAX_BODY_BYTES + 2 * 64 * KiB);
  });

  it("are refused with 413 by a route that takes no body, too", async () => {
    const request = new Request("http://inbox.test/api/v1/deliveries/dlv_x/replay", {
      method: "POST",
      body: new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new Uint8Array(64 * KiB)) }),
      headers: { authorization: `Bearer ${org.apiKey}` },
      duplex: "half",
    } as RequestInit);
    const response = await replayOne.POST(request, { params: Promise.resolve({ id: "dlv_x" }) });
    expect(response.status).toBe(413);
  });

  it("are refused before authentication, and a body of exactly 1 MiB is still read and judged", async () => {
    const unauthenticated = await collection.POST(
      new Request("http://inbox.test/api/v1/endpoints", { method: "POST", body: "{}", headers: { "content-length": String(10 * REST_MAX_BODY_BYTES) } }),
      { params: Promise.resolve({}) },
    );
    expect(unauthenticated.status).toBe(413);

    const prefix = '{"name":"';
    const suffix = '","provider":"none","destinationUrl":"http://127.0.0.1:9/"}';
    const exact = prefix + "n".repeat(REST_MAX_BODY_BYTES - prefix.length - suffix.length) + suffix;
    expect(Buffer.byteLength(exact)).toBe(REST_MAX_BODY_BYTES);
    const res = await callRoute(collection.POST, { method: "POST", apiKey: org.apiKey, body: exact });
    expect(res.status).toBe(400); // read whole, then refused for its too-long name, not its size
    expect(res.body.error.message).toMatch(/name/);
  });
});

describe("control characters in a REST request", () => {
  it("get 400 in a query value, whichever route and parameter", async () => {
    for (const path of ["/?q=%00", "/?eventType=%00", "/?q=a%07b", "/?eventType=invoice.%1F*", "/?endpointId=ep_%00"]) {
      const res = await callRoute(deliveries.GET, { apiKey: org.apiKey, path });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.message).toMatch(/control character/);
    }
    const list = await callRoute(collection.GET, { apiKey: org.apiKey, path: "/?cursor=%00" });
    expect(list.status).toBe(400);
    const named = await callRoute(deliveries.GET, { apiKey: org.apiKey, path: "/?q%00=x" });
    expect(named.status).toBe(400);
  });

  it("get 400 in a path parameter", async () => {
    const res = await callRoute(delivery.GET, { apiKey: org.apiKey, params: { id: "a\u0000b" } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/path parameter id contains a control character \(U\+0000\)/);
    const endpoint = await callRoute(item.GET, { apiKey: org.apiKey, params: { id: "ep_\u0000" } });
    expect(endpoint.status).toBe(400);
  });

  it("get 400 in any JSON field, nested fields and field names included, naming the field", async () => {
    const base = { name: "ok", provider: "none", destinationUrl: "http://127.0.0.1:9/" };
    const cases: Array<[unknown, RegExp]> = [
      [{ ...base, name: "bad\u0000name" }, /body\.name contains a control character \(U\+0000\)/],
      [{ ...base, name: "tab\tname" }, /body\.name contains a control character \(U\+0009\)/],
      [{ ...base, name: "c1\u0085" }, /U\+0085/],
      [{ ...base, name: "half \ud800" }, /body\.name is not valid Unicode/],
      [{ ...base, provider: "generic-hmac", secret: "s", genericHmac: { header: "x-sig", prefix: "sha256=\u0007" } }, /body\.genericHmac\.prefix/],
      [{ ...base, ["na\u0000me"]: 1 }, /field name/],
      [["\u0000"], /body\[0\]/],
    ];
    for (const [body, message] of cases) {
      const res = await callRoute(collection.POST, { method: "POST", apiKey: org.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.message).toMatch(message);
    }
    const created = await callRoute(collection.POST, { method: "POST", apiKey: org.apiKey, body: { ...base, name: "héllo 🎉 ünïcode" } });
    expect(created.status).toBe(201);
    const patched = await callRoute(item.PATCH, { method: "PATCH", apiKey: org.apiKey, params: { id: created.body.id }, body: { name: "x\u0000" } });
    expect(patched.status).toBe(400);
    const bulk = await callRoute(bulkReplay.POST, { method: "POST", apiKey: org.apiKey, body: { eventType: "a\u0000" } });
    expect(bulk.status).toBe(400);
    expect((await callRoute(item.GET, { apiKey: org.apiKey, params: { id: created.body.id } })).body.name).toBe("héllo 🎉 ünïcode");
  });

  it("get 400 for JSON nested too deeply to check, never a 500", async () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const res = await callRoute(collection.POST, { method: "POST", apiKey: org.apiKey, body: deep });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/nested too deeply/);
  });
});
