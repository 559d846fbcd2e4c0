// Sends requests to the ingest route handler in this process, the way Next.js calls it, signed as the
// providers sign them. For tests of ingest's answers that need no real HTTP server.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import * as ingestRoute from "@/app/in/[endpointId]/route";

export interface IngestAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of several shapes
  body: any;
}

/** Standard Webhooks headers for `body`, with a fresh id unless one is given. */
export function standardWebhooksHeaders(secret: string, body: string, id = `msg_${randomBytes(8).toString("hex")}`): Record<string, string> {
  const at = new Date();
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
    "content-type": "application/json",
  };
}

export async function postIngest(endpointId: string, body: BodyInit | null, headers: Record<string, string>): Promise<IngestAnswer> {
  const request = new Request(`http://inbox.test/in/${endpointId}`, { method: "POST", body, headers, duplex: "half" } as RequestInit);
  const response = await ingestRoute.POST(request, { params: Promise.resolve({ endpointId }) });
  return { status: response.status, headers: response.headers, body: await response.json() };
}
