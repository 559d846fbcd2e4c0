// The web server keeps a sender's idle keep-alive connection open past Node's default 5 s: closing it then
// races the sender's next request on it, which fails with ECONNRESET (lib/runtime/next-build.ts).
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({ databaseUrl: database.url() });
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

/** Sends a GET on `socket` and resolves with the status line of its answer. */
function get(socket: net.Socket, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = "";
    const onData = (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      // The whole answer is in: its Content-Length's bytes after the headers, or a chunked body's last chunk.
      const end = answer.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(answer)?.[1];
      const complete = length !== undefined ? answer.length >= end + 4 + Number(length) : answer.endsWith("\r\n0\r\n\r\n");
      if (end >= 0 && complete) {
        socket.off("data", onData);
        resolve(answer.slice(0, answer.indexOf("\r\n")));
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(`GET /api/health HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe("an idle keep-alive connection", () => {
  it("is still open 7 s later and takes the next request", { timeout: 30_000 }, async () => {
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    let closedAt: number | null = null;
    socket.once("close", () => (closedAt = Date.now()));
    try {
      expect(await get(socket, url.host)).toMatch(/^HTTP\/1\.1 (200|503)/);
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      expect(closedAt).toBeNull();
      expect(await get(socket, url.host)).toMatch(/^HTTP\/1\.1 (200|503)/);
    } finally {
      socket.destroy();
    }
  });
});
