// A Stripe endpoint in one pass (#47, API.md "Endpoints"): an endpoint of a provider that issues its own secret
// is created without it, awaiting it; what arrives meanwhile is refused 401 and kept in the quarantine, each row
// saying which event it claims to be (type and external id, never a header or the body); setting the secret
// (rotate-secret or PATCH) re-verifies the quarantine and delivers what verifies, once. Providers whose secret we
// generate are unchanged. Ingest runs in this process; the re-verify job's work is called as the job calls it.
import Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import * as endpointsRoute from "@/app/api/v1/endpoints/route";
import * as endpointRoute from "@/app/api/v1/endpoints/[id]/route";
import * as quarantineRoute from "@/app/api/v1/endpoints/[id]/quarantine/route";
import * as rotateRoute from "@/app/api/v1/endpoints/[id]/rotate-secret/route";
import { getSql } from "@/db";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { postIngest } from "@/test/ingest-requests";
import { reverifyQuarantined } from "./reverify-quarantined";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems";

const STRIPE_SECRET = "whsec_the_secret_stripe_shows_later";
const sdk = new Stripe("sk_test_unused");
const fromStripe = (endpointId: string, event: { id: string; type: string }, secret = STRIPE_SECRET) => {
  const body = JSON.stringify({ ...event, object: "event", data: { object: { customer: "cus_42" } } });
  return postIngest(endpointId, body, { "content-type": "application/json", "stripe-signature": sdk.webhooks.generateTestHeaderString({ payload: body, secret }) });
};

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let org: Org;
beforeAll(async () => {
  org = await createOrganizationFixture("One pass");
});

const api = (handler: Parameters<typeof callRoute>[0], method: string, path: string, options: { id?: string; body?: unknown } = {}) =>
  callRoute(handler, { method, apiKey: org.apiKey, path: `/api/v1${path}`, params: options.id ? { id: options.id } : {}, body: options.body });

const create = async (body: Record<string, unknown>) =>
  api(endpointsRoute.POST, "POST", "/endpoints", { body: { name: `ep ${Math.random()}`, destinationUrl: "http://127.0.0.1:9/hook", ...body } });

const reverifyJobs = async (endpointId: string) =>
  (await getSql()`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier = 'reverify-quarantine' and j.payload->>'endpointId' = ${endpointId}`)[0]!.n as number;

const deliveriesOf = (endpointId: string) =>
  getSql()<{ external_id: string; event_type: string; status: string }[]>`select external_id, event_type, status from deliveries where endpoint_id = ${endpointId} order by received_at`;

describe("an endpoint of a provider that issues its own secret may be created without it", () => {
  it("is created awaiting it, refuses and quarantines what arrives, and delivers it once the secret is set by rotate-secret", async () => {
    const created = await create({ provider: "stripe" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ provider: "stripe", awaitingSecret: true, ingestUrl: expect.stringContaining(`/in/${created.body.id}`) });
    expect(created.body.secret).toBeUndefined();
    const id = created.body.id as string;
    expect((await api(endpointRoute.GET, "GET", `/endpoints/${id}`, { id })).body.awaitingSecret).toBe(true);

    // Stripe sends (signed with the secret it has and we do not yet), twice the same event, and one unsigned non-JSON request.
    expect((await fromStripe(id, { id: "evt_1Paid", type: "invoice.paid" })).status).toBe(401);
    expect((await fromStripe(id, { id: "evt_1Paid", type: "invoice.paid" })).status).toBe(401);
    expect((await postIngest(id, "not json", { "content-type": "text/plain" })).status).toBe(401);
    expect(await deliveriesOf(id)).toEqual([]);

    const listed = await api(quarantineRoute.GET, "GET", `/endpoints/${id}/quarantine`, { id });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(3);
    const [unsigned, ...signed] = listed.body.data;
    for (const row of signed) {
      expect(row).toMatchObject({ reason: "invalid_signature", eventType: "invoice.paid", externalId: "evt_1Paid", sizeBytes: expect.any(Number) });
      expect(Object.keys(row)).not.toEqual(expect.arrayContaining(["headers"]));
      expect(Object.keys(row)).not.toEqual(expect.arrayContaining(["body"]));
    }
    // Nothing readable: neither key.
    expect(unsigned).toMatchObject({ reason: "missing_signature" });
    expect(unsigned).not.toHaveProperty("eventType");
    expect(unsigned).not.toHaveProperty("externalId");

    const rotated = await api(rotateRoute.POST, "POST", `/endpoints/${id}/rotate-secret`, { id, body: { secret: STRIPE_SECRET } });
    expect(rotated).toMatchObject({ status: 200, body: { previousSecretValidUntil: null } });
    expect(rotated.body.secret).toBeUndefined();
    expect((await api(endpointRoute.GET, "GET", `/endpoints/${id}`, { id })).body.awaitingSecret).toBe(false);
    expect(await reverifyJobs(id)).toBe(1);
    // The job's work: what verifies becomes a delivery, the same event once.
    expect(await reverifyQuarantined({ ctx: org.ctx, input: { endpointId: id } })).toEqual({ count: 2, duplicates: 1 });
    expect(await deliveriesOf(id)).toEqual([{ external_id: "evt_1Paid", event_type: "invoice.paid", status: "pending" }]);
    expect((await api(quarantineRoute.GET, "GET", `/endpoints/${id}/quarantine`, { id })).body.data).toHaveLength(1); // the unsigned one stays

    // From now on Stripe's requests are stored as they come.
    forgetEndpoint(id);
    expect(await fromStripe(id, { id: "evt_2Paid", type: "invoice.paid" })).toMatchObject({ status: 200, body: { duplicate: false } });
  });

  it("takes the secret by PATCH too, and a later rename leaves an awaiting endpoint awaiting", async () => {
    const created = await create({ provider: "github" });
    expect(created).toMatchObject({ status: 201, body: { awaitingSecret: true } });
    const id = created.body.id as string;
    const renamed = await api(endpointRoute.PATCH, "PATCH", `/endpoints/${id}`, { id, body: { name: "GitHub pushes" } });
    expect(renamed).toMatchObject({ status: 200, body: { name: "GitHub pushes", awaitingSecret: true } });
    const set = await api(endpointRoute.PATCH, "PATCH", `/endpoints/${id}`, { id, body: { secret: "a-github-webhook-secret" } });
    expect(set).toMatchObject({ status: 200, body: { awaitingSecret: false } });
    expect(await reverifyJobs(id)).toBe(1);
  });

  it("leaves providers whose secret we generate as they were, and `none` without one", async () => {
    const generated = await create({ provider: "standard-webhooks" });
    expect(generated).toMatchObject({ status: 201, body: { awaitingSecret: false, secret: expect.stringMatching(/^whsec_/) } });
    expect((await create({ provider: "none" })).body.awaitingSecret).toBe(false);
  });
});
