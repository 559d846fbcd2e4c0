// The naive's worker, a process of its own (as the product's is): graphile-worker's run() with one
// plain task that POSTs the stored body, with the headers it came with, to the destination and marks
// the webhook delivered; a failure throws and graphile-worker retries it with its own backoff.
// NAIVE_DATABASE_URL, NAIVE_DESTINATION (the URL), NAIVE_CONCURRENCY (jobs at once; its pool is that
// many connections and two more). Stops on SIGTERM (graphile-worker's own handling).
import { run, type Task } from "graphile-worker";
import { naiveGraphileLogger } from "./database";

const destination = process.env.NAIVE_DESTINATION!;
const concurrency = Number(process.env.NAIVE_CONCURRENCY ?? 10);
/** Not passed on: they describe the hop in, not the webhook. */
const HOP_HEADERS = new Set(["host", "connection", "keep-alive", "content-length", "transfer-encoding"]);

const naiveDeliver: Task = async (payload, helpers) => {
  const { id } = payload as { id: number };
  const { rows: [webhook] } = await helpers.query<{ headers: Record<string, string>; body: string }>("select headers, body from webhooks where id = $1", [id]);
  if (!webhook) return;
  const headers = Object.fromEntries(Object.entries(webhook.headers).filter(([name]) => !HOP_HEADERS.has(name)));
  const response = await fetch(destination, { method: "POST", headers: { ...headers, "x-inbox-delivery-id": `naive_${id}` }, body: webhook.body });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`the destination answered ${response.status}`);
  await helpers.query("update webhooks set delivered_at = now() where id = $1", [id]);
};

await run({
  connectionString: process.env.NAIVE_DATABASE_URL!,
  concurrency,
  maxPoolSize: concurrency + 2,
  logger: naiveGraphileLogger,
  taskList: { naive_deliver: naiveDeliver },
});
