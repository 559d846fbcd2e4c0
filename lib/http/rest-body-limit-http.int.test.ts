// REST bodies over 1 MiB through the real server, on a raw socket: the 413 comes back while the
// client is still holding back the body it declared, so the server cannot have read it.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
let server: RunningServer | undefined;
let apiKey: string;
beforeAll(async () => {
  apiKey = (await createOrganizationFixture()).apiKey;
  server = await startNextServer({ databaseUrl: database.url() });
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

/** Sends the head and `bodyPrefix`, then waits for the answer's status line without sending more. */
function answerBeforeBody(head: string, bodyPrefix: Buffer): Promise<{ statusLine: string; socket: net.Socket }> {
  const { port } = new URL(server!.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => {
      socket.write(head);
      socket.write(bodyPrefix);
    });
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (received.includes("\r\n")) resolve({ statusLine: received.slice(0, received.indexOf("\r\n")), socket });
    });
    socket.on("error", reject);
    setTimeout(() => reject(new Error(`no answer while the body was held back; got ${JSON.stringify(received)}`)), 10_000);
  });
}

describe("a REST body over 1 MiB through the real server", () => {
  it("gets 413 on its declared Content-Length while the body is still unsent", async () => {
    const head = [
      "POST /api/v1/endpoints HTTP/1.1",
      `Host: 127.0.0.1:${new URL(server!.url).port}`,
      `Authorization: Bearer ${apiKey}`,
      "Content-Type: application/json",
      `Content-Length: ${64 * 1024 * 1024}`,
      "",
      "",
    ].join("\r\n");
    const { statusLine, socket } = await answerBeforeBody(head, Buffer.from('{"name":"'));
    socket.destroy();
    expect(statusLine).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("gets 413 once a chunked body passes 1 MiB, while the client still has more to send", async () => {
    const head = [
      "POST /api/v1/endpoints HTTP/1.1",
      `Host: 127.0.0.1:${new URL(server!.url).port}`,
      `Authorization: Bearer ${apiKey}`,
      "Content-Type: application/json",
      "Transfer-Encoding: chunked",
      "",
      "",
    ].join("\r\n");
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    // 1.25 MiB sent, the terminating chunk never: the answer can only come from counting.
    const { statusLine, socket } = await answerBeforeBody(head, Buffer.concat(Array.from({ length: 5 }, () => framed)));
    socket.destroy();
    expect(statusLine).toMatch(/^HTTP\/1\.1 413 /);
  });
});
