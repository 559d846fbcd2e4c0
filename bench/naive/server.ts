// The naive's ingest, a process of its own (as the product's web server is): bare node:http; POST
// /in/<endpoint> verifies the Standard Webhooks signature with that endpoint's secret, then one
// transaction: INSERT … ON CONFLICT DO NOTHING and graphile_worker.add_job. Answers {"id"} as the
// product does. NAIVE_DATABASE_URL, NAIVE_SECRETS (JSON: endpoint → secret), NAIVE_PORT (0: a free
// one); prints "listening <port>" once it listens; stops on SIGTERM.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";

const sql = postgres(process.env.NAIVE_DATABASE_URL!, { max: 10, onnotice: () => {} });
const webhooks = new Map(Object.entries(JSON.parse(process.env.NAIVE_SECRETS!) as Record<string, string>).map(([endpoint, secret]) => [endpoint, new Webhook(secret)]));

const flat = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

async function store(endpoint: string, headers: Record<string, string>, body: string): Promise<string> {
  return sql.begin(async (tx) => {
    const [inserted] = await tx<{ id: string }[]>`
      insert into webhooks (endpoint, webhook_id, headers, body) values (${endpoint}, ${headers["webhook-id"]!}, ${tx.json(headers)}, ${body})
      on conflict (endpoint, webhook_id) do nothing returning id::text`;
    if (!inserted) {
      const [existing] = await tx<{ id: string }[]>`select id::text from webhooks where endpoint = ${endpoint} and webhook_id = ${headers["webhook-id"]!}`;
      return existing!.id;
    }
    await tx`select graphile_worker.add_job('naive_deliver', json_build_object('id', ${inserted.id}::bigint))`;
    return inserted.id;
  });
}

const server = createServer((req, res) => {
  const endpoint = /^\/in\/([^/?]+)$/.exec(req.url ?? "")?.[1];
  const webhook = endpoint === undefined ? undefined : webhooks.get(endpoint);
  if (req.method !== "POST" || !webhook || !endpoint) {
    req.resume();
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const headers = flat(req.headers);
    try {
      webhook.verify(body, headers);
    } catch {
      res.writeHead(401).end();
      return;
    }
    store(endpoint, headers, body).then(
      (id) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: `naive_${id}` })),
      (error: unknown) => {
        console.error(`naive ingest: ${String(error)}`);
        res.writeHead(503).end();
      },
    );
  });
});

server.listen(Number(process.env.NAIVE_PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => void sql.end({ timeout: 5 }).then(() => process.exit(0)));
});
