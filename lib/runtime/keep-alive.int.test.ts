// The web server keeps a sender's idle keep-alive connection open past Node's default 5 s: closing it then
// races the sender's next request on it, which fails with ECONNRESET (lib/runtime/next-build.ts); and a
// stopping server does not wait on such connections (lib/http/close-on-shutdown-hook.cjs).
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

  it("does not hold up a stopping server, nor does a stalled upload already answered", { timeout: 60_000 }, async () => {
    const url = new URL(server.url);
    const connect = async () => {
      const socket = net.connect(Number(url.port), url.hostname);
      await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
      return socket;
    };
    const idle = await connect();
    expect(await get(idle, url.host)).toMatch(/^HTTP\/1\.1 (200|503)/);
    // A REST body declared over the 1 MiB limit is refused before it is read; the sender then sends nothing more.
    const stalled = await connect();
    const refused = new Promise<string>((resolve) => stalled.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1"))));
    stalled.write(`POST /api/v1/endpoints HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{`);
    expect(await refused).toMatch(/^HTTP\/1\.1 (401|413)/);
    const closed = (socket: net.Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once("close", () => resolve())));
    const started = Date.now();
    await server.stop();
    await Promise.all([closed(idle), closed(stalled)]);
    // Node's keep-alive timeout here is 65 s: a stop that waited on either connection would take that long.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
