// bench/neighbours' flood, in a process of its own so that its load generator does not delay the
// measured organization's requests in the bench's event loop: org A's valid signed Standard Webhooks
// requests at full speed on FLOOD_CONNECTIONS connections for FLOOD_SECONDS, their bodies as
// FLOOD_BODY says (BENCH_BODY's syntax, bench/support/signed-webhook.ts; BENCH_BODY's when unset). Prints one JSON line.
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { Webhook } from "standardwebhooks";
import { benchBody, signedWebhook } from "../support/signed-webhook";

const url = process.env.FLOOD_URL!;
const webhook = new Webhook(process.env.FLOOD_SECRET!);
const body = process.env.FLOOD_BODY ? benchBody(process.env.FLOOD_BODY, "FLOOD_BODY") : benchBody(process.env.BENCH_BODY);
let sequence = 0;

const result = await autocannon({
  url,
  connections: Number(process.env.FLOOD_CONNECTIONS ?? 50),
  duration: Number(process.env.FLOOD_SECONDS ?? 20),
  // FLOOD_RATE: send at most this many requests a second instead of full speed (to see what A's admitted load alone costs B).
  ...(process.env.FLOOD_RATE ? { overallRate: Number(process.env.FLOOD_RATE) } : {}),
  requests: [{
    method: "POST",
    // A unique, freshly signed request each time, as bench/ingest sends.
    setupRequest: (request) => ({ ...request, ...signedWebhook(webhook, `flood_${process.pid}_${sequence++}_${randomBytes(4).toString("hex")}`, "flood.event", body) }),
  }],
});
console.log(JSON.stringify({
  requests: result.requests.total, perSecond: result.requests.average, errors: result.errors, timeouts: result.timeouts,
  statusCodes: result.statusCodeStats, p50: result.latency.p50, p99: result.latency.p99,
  cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
}));
