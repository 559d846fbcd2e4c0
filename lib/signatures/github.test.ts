import { sign } from "@octokit/webhooks-methods";
import { describe, expect, it } from "vitest";
import { github } from "@/lib/signatures/github";
import { expectRejected, request } from "@/test/signature-requests";

const SECRET = "github-current-secret";
const PREVIOUS = "github-previous-secret";
const BODY = JSON.stringify({ action: "opened", number: 7 });
const META = { "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958", "x-github-event": "pull_request" };

async function signed(secret = SECRET, body = BODY) {
  const headers = { ...META, "x-hub-signature-256": await sign(secret, body) };
  return request({ body: Buffer.from(body), headers, secrets: [SECRET] });
}

describe("github", () => {
  it("accepts GitHub's documented example", () => {
    const input = request({
      body: Buffer.from("Hello, World!"),
      headers: { "x-hub-signature-256": "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" },
      secrets: ["It's a Secret to Everybody"],
    });
    expect(github.verify(input)).toEqual({ externalId: null, eventType: null });
  });

  it("accepts a request signed by @octokit/webhooks-methods and reads the delivery id and event", async () => {
    expect(github.verify(await signed())).toEqual({ externalId: META["x-github-delivery"], eventType: "pull_request" });
  });

  it("accepts the previous secret during rotation", async () => {
    expect(github.verify({ ...(await signed(PREVIOUS)), secrets: [SECRET, PREVIOUS] }).eventType).toBe("pull_request");
  });

  it("accepts an old delivery, since GitHub signs no timestamp", async () => {
    expect(github.verify({ ...(await signed()), now: new Date("2040-01-01T00:00:00Z") }).eventType).toBe("pull_request");
  });

  it("rejects a tampered body", async () => {
    expectRejected(github, { ...(await signed()), body: Buffer.from(BODY.replace("7", "8")) }, "invalid_signature");
  });

  it("rejects a wrong secret", async () => {
    expectRejected(github, { ...(await signed()), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a request without X-Hub-Signature-256 as missing_signature", () => {
    const input = request({ body: Buffer.from(BODY), headers: { ...META }, secrets: [SECRET] });
    expect(expectRejected(github, input, "missing_signature").message).toContain("X-Hub-Signature-256");
  });

  it("rejects a signature without the sha256= prefix", async () => {
    const input = await signed();
    input.headers["x-hub-signature-256"] = input.headers["x-hub-signature-256"].replace("sha256=", "sha1=");
    expect(expectRejected(github, input, "invalid_signature").message).toContain("sha256=<hex>");
  });
});
