// Issue #12 item 4: nothing secret in any log line. A full scenario — endpoints with known secrets
// (an outboundSecret, a destination with user:password@), ingest with marker strings in the body,
// a header and the query, failing deliveries, replays, a secret rotation, a new API key, the
// database taken down while REST and ingest traffic flows, and back — then every byte that
// `npm start`, the web server and the worker printed is searched for each secret and marker.
import { createHash, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import {
  AUTH_SECRET,
  cleanUp,
  createApp,
  createEndpoint,
  createTenant,
  report,
  request,
  sendSigned,
  sleep,
  startDestination,
  startIngestLoad,
  startPrivatePostgres,
  until,
  type Tenant,
} from "./harness";

afterAll(cleanUp);

const mark = (name: string) => `${name}${randomBytes(6).toString("hex")}`;
const whsec = () => `whsec_${randomBytes(24).toString("base64")}`;
const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

/** A REST loop while the database goes away: reads, a search, writes carrying secrets. */
// Rotation goes to `rotatedEndpointId`, not to the endpoint the ingest load signs for: a second rotation
// would retire the load's secret, and requests refused 401 never reach the database to meet the outage.
function restTraffic(tenant: Tenant, endpointId: string, rotatedEndpointId: string, secrets: { password: string; secret: string; outbound: string; searchMarker: string; port: number }) {
  let running = true;
  const statuses: number[] = [];
  const noAnswer: string[] = [];
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const calls = [
        () => tenant.api("GET", "/endpoints"),
        () => tenant.api("GET", `/deliveries?q=${encodeURIComponent(secrets.searchMarker)}`),
        () => tenant.api("PATCH", `/endpoints/${endpointId}`, { destinationUrl: `http://rest-user:${secrets.password}@127.0.0.1:${secrets.port}/hook`, outboundSecret: secrets.outbound }),
        () => tenant.api("POST", "/endpoints", { name: `during-${i}`, provider: "standard-webhooks", secret: secrets.secret, destinationUrl: `http://u:${secrets.password}@127.0.0.1:${secrets.port}/x` }),
        () => tenant.api("POST", `/endpoints/${rotatedEndpointId}/rotate-secret`, { secret: secrets.secret }),
      ];
      const started = Date.now();
      statuses.push(
        await calls[i % calls.length]().then(
          (a) => a.status,
          (error) => (noAnswer.push(`call ${i % calls.length}: ${String(error)} after ${Date.now() - started} ms`), 0),
        ),
      );
      await sleep(100);
    }
  })();
  return { statuses, noAnswer, stop: async () => ((running = false), await loop) };
}

describe("no secret, credential, key hash, body, header value or query parameter appears in anything the app printed", () => {
  it("greps every line of start, web server and worker output after a scenario with failures, replays, rotation and an outage", async () => {
    const pg = await startPrivatePostgres();
    const app = await createApp(pg.url); // DELIVERY_LOG unset: every attempt is logged
    await app.start();
    const tenant = await createTenant(app, pg.url);
    const destination = await startDestination();

    const password = mark("UrlPassw0rd");
    const inboundSecret = whsec();
    const outboundSecret = whsec();
    const restSecret = whsec();
    const bodyMarker = mark("BODYMARK");
    const headerMarker = mark("HEADERMARK");
    const queryMarker = mark("QUERYMARK");
    const signatureMarker = mark("SIGMARK");

    const endpoint = await createEndpoint(tenant, {
      secret: inboundSecret,
      outboundSecret,
      destinationUrl: destination.url(`hook-user:${password}`),
      maxAttempts: 3,
      timeoutMs: 3_000,
    });
    const generated = await createEndpoint(tenant, { destinationUrl: destination.url(`other:${password}`), maxAttempts: 2 });

    // Deliveries that fail (503 with a body), then some that go dead; refused requests too.
    destination.setMode("fail");
    const failing = [];
    for (let i = 0; i < 5; i++) {
      failing.push(await sendSigned(app, endpoint, JSON.stringify({ type: "secret.test", marker: bodyMarker, i }), { "x-custom-marker": headerMarker, authorization: `Bearer ${headerMarker}` }, `?token=${queryMarker}`));
      failing.push(await sendSigned(app, generated, JSON.stringify({ marker: bodyMarker }), { "x-custom-marker": headerMarker }));
    }
    expect(failing.map((r) => r.status)).toEqual(Array(10).fill(200));
    const badSignature = await request(`${app.url}/in/${endpoint.id}?token=${queryMarker}`, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": headerMarker, "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": `v1,${signatureMarker}` },
      body: JSON.stringify({ marker: bodyMarker }),
    });
    expect(badSignature.status).toBe(401);
    const badKey = await request(`${app.url}/api/v1/endpoints`, { headers: { authorization: `Bearer inbox_sk_${signatureMarker}` } });
    expect(badKey.status).toBe(401);
    await until("failed attempts", () => destination.requests.length >= 10, 60_000);

    // Replay one, then in bulk, with the destination back.
    destination.setMode("ok");
    const one = await tenant.api("POST", `/deliveries/${failing[0].deliveryId}/replay`);
    const bulk = await tenant.api("POST", "/deliveries/replay", { endpointId: generated.id });
    // Rotation: a given secret and a generated one.
    const rotatedGiven = whsec();
    const rotation = await tenant.api("POST", `/endpoints/${endpoint.id}/rotate-secret`, { secret: rotatedGiven });
    const rotationGenerated = await tenant.api("POST", `/endpoints/${generated.id}/rotate-secret`, {});
    expect(rotation.status).toBe(200);
    expect(rotationGenerated.status).toBe(200);
    // A second API key, used.
    const { apiKey: secondKey } = JSON.parse(
      execFileSync(process.execPath, ["--import", "tsx", "lib/cli/inbox.ts", "apikey:create", "--org", tenant.organizationId], {
        env: { ...process.env, DATABASE_URL: pg.url, AUTH_SECRET },
        encoding: "utf8",
      }).trim().split("\n").pop()!,
    );
    expect((await request(`${app.url}/api/v1/endpoints`, { headers: { authorization: `Bearer ${secondKey}` } })).status).toBe(200);

    // The database goes away while REST and ingest traffic flows, then comes back.
    const rotatedEndpoint = { id: endpoint.id, secret: rotatedGiven };
    const ingest = startIngestLoad(app, rotatedEndpoint, {
      connections: 2,
      pauseMs: 50,
      body: (i) => JSON.stringify({ marker: bodyMarker, i }),
      headers: { "x-custom-marker": headerMarker },
      query: `?token=${queryMarker}`,
    });
    const rest = restTraffic(tenant, endpoint.id, generated.id, { password, secret: restSecret, outbound: outboundSecret, searchMarker: bodyMarker, port: 9 });
    await sleep(2_000);
    await pg.stop();
    await sleep(15_000);
    await pg.start();
    await until("health ok again", async () => {
      const h = await app.health();
      return h.status === 200 && (h.body as { worker: string }).worker === "ok";
    }, 90_000);
    await sleep(3_000);
    await Promise.all([ingest.stop(), rest.stop()]);
    await sleep(2_000);
    expect(await app.stop()).toBe(0);

    const secrets: Record<string, string> = {
      "URL password": password,
      "inbound secret": inboundSecret,
      "inbound secret key": inboundSecret.slice("whsec_".length),
      "outbound secret": outboundSecret,
      "outbound secret key": outboundSecret.slice("whsec_".length),
      "REST-sent secret": restSecret,
      "endpoint 2 generated secret": generated.secret,
      "rotated secret": rotatedGiven,
      "rotated generated secret": rotationGenerated.body.secret,
      "API key": tenant.apiKey,
      "API key hash": sha256(tenant.apiKey),
      "second API key": secondKey,
      "second API key hash": sha256(secondKey),
      "wrong API key": `inbox_sk_${signatureMarker}`,
      "wrong API key hash": sha256(`inbox_sk_${signatureMarker}`),
      "body marker": bodyMarker,
      "header marker": headerMarker,
      "query marker": queryMarker,
      "signature marker": signatureMarker,
      "destination's answer": "down for maintenance",
      "AUTH_SECRET": AUTH_SECRET,
    };
    const output = app.output();
    const leaks = Object.entries(secrets)
      .filter(([, value]) => value && output.includes(value))
      .map(([name, value]) => ({ name, lines: output.split("\n").filter((line) => line.includes(value)).slice(0, 3) }));
    report("log secrets", {
      outputBytes: output.length,
      outputLines: output.split("\n").length,
      restStatuses: [...new Set(rest.statuses)].sort(),
      restNoAnswer: rest.noAnswer,
      ingestStatuses: [...new Set(ingest.results.map((r) => r.status))].sort(),
      replay: [one.status, bulk.status],
      leaked: leaks.map((l) => l.name),
    });
    // The scenario really ran into the outage: the app printed something about the database.
    expect(rest.statuses.some((status) => status >= 500)).toBe(true);
    expect(ingest.results.some((r) => r.status === 503)).toBe(true);
    expect(ingest.results.filter((r) => r.status === 401).length).toBe(0);
    expect(output.length).toBeGreaterThan(1_000);
    expect(leaks, JSON.stringify(leaks, null, 2)).toEqual([]);
  });
});
