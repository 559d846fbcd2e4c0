// The naive comparison: bare node:http, verify with standardwebhooks, then one transaction per
// request with its own add_job. What ingest would be without Next.js and without group commit.
import { createServer } from "node:http";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { newId } from "@/lib/ids";

export function startNaiveServer(options: { databaseUrl: string; port: number; endpointId: string; organizationId: string; secret: string }) {
  const sql = postgres(options.databaseUrl, { max: 10, onnotice: () => {} });
  const webhook = new Webhook(options.secret);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      try {
        webhook.verify(body.toString("utf8"), headers);
      } catch {
        res.writeHead(401).end();
        return;
      }
      const id = newId("dlv");
      try {
        await sql.begin(async (tx) => {
          // The dedupe key first, in its own table as the product keeps it (deliveries is partitioned).
          const inserted = await tx`insert into delivery_keys (endpoint_id, external_id, delivery_id)
            values (${options.endpointId}, ${headers["webhook-id"]!}, ${id}) on conflict (endpoint_id, external_id) do nothing returning delivery_id`;
          if (inserted.length) {
            await tx`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, size_bytes)
              values (${id}, ${options.organizationId}, ${options.endpointId}, 'dst_' || substr(${options.endpointId}, 4), ${headers["webhook-id"]!}, ${body.length})`;
            await tx`insert into delivery_payloads (delivery_id, organization_id, headers, body) values (${id}, ${options.organizationId}, ${sql.json(headers)}, ${body})`;
            await tx`select graphile_worker.add_job('deliver', json_build_object('deliveryId', ${id}::text, 'trigger', 'auto'))`;
          }
        });
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id, duplicate: false }));
      } catch {
        res.writeHead(503).end();
      }
    });
  });
  return new Promise<{ close: () => Promise<void> }>((resolve) =>
    server.listen(options.port, "127.0.0.1", () =>
      resolve({
        close: async () => {
          // Requests cut off in flight must not reach a pool that is ending.
          await new Promise<void>((closed) => (server.closeAllConnections(), server.close(() => closed())));
          await sql.end({ timeout: 5 });
        },
      }),
    ),
  );
}
