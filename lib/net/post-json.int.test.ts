// The alert channels' POST (post-json.ts) keeps the destinations' SSRF rules at send time, whatever was checked
// when the channel was saved, and follows no redirect.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startDestination, type Destination } from "@/test/delivery-fixtures";
import { postJson } from "./post-json";

let receiver: Destination;
beforeAll(async () => {
  receiver = await startDestination((_request, response) => {
    response.statusCode = 302;
    response.setHeader("location", "http://169.254.169.254/latest/meta-data");
    response.end();
  });
});
afterAll(() => receiver?.close());
afterEach(() => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
});

describe("postJson", () => {
  it("refuses a loopback address unless private destinations are allowed, by name or as a literal", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    await expect(postJson({ url: receiver.url, body: "{}", timeoutMs: 2000 })).rejects.toThrow(/127\.0\.0\.1/);
    await expect(postJson({ url: receiver.url.replace("127.0.0.1", "localhost"), body: "{}", timeoutMs: 2000 })).rejects.toThrow();
    expect(receiver.requests).toHaveLength(0);
  });

  it("answers a redirect as it is, without following it", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    const answer = await postJson({ url: receiver.url, body: '{"a":1}', timeoutMs: 2000 });
    expect(answer.status).toBe(302);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.headers["content-type"]).toBe("application/json");
    expect(receiver.requests[0]!.body.toString()).toBe('{"a":1}');
  });
});
