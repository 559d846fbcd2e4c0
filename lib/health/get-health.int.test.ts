import net from "node:net";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { getHealth } from "./get-health";

useTestDatabase();

describe("reports the worker as ok only while a heartbeat is under 30 s old", () => {
  it("says stale with only an old heartbeat, ok once a fresh one arrives", async () => {
    await getSql()`insert into worker_heartbeats (pool_id, hostname, pid, last_seen_at) values ('pool-old', 'h', 1, now() - interval '31 seconds')`;
    expect(await getHealth()).toEqual({ status: 200, body: { database: "ok", worker: "stale" } });
    await getSql()`insert into worker_heartbeats (pool_id, hostname, pid) values ('pool-new', 'h', 2)`;
    expect(await getHealth()).toEqual({ status: 200, body: { database: "ok", worker: "ok" } });
  });
});

describe("answers 503 within about 2 s when the database does not answer", () => {
  // Accepts connections and never says a word, like a hung server.
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => sockets.add(socket));
  afterAll(() => {
    sockets.forEach((socket) => socket.destroy());
    silent.close();
  });

  it("gives up on a database that hangs", async () => {
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const sql = postgres(`postgres://u:p@127.0.0.1:${port}/db`, { max: 1, connect_timeout: 30 });
    const started = Date.now();
    const health = await getHealth({ sql });
    expect(health).toEqual({ status: 503, body: { database: "unavailable", worker: "unknown" } });
    expect(Date.now() - started).toBeLessThan(3_000);
    await sql.end({ timeout: 0 });
  });
});
