// The bench's tenants: three organizations on different providers, endpoints of very different sizes
// (the biggest holds 30 % of all deliveries), one endpoint failing for the last two days.
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { createOrganizationFixture } from "@/test/fixtures";
import type { SeedEndpoint } from "./seed";

const STRIPE = [
  "invoice.paid", "charge.succeeded", "payment_intent.succeeded", "customer.updated", "invoice.created",
  "customer.subscription.updated", "charge.refunded", "invoice.payment_failed", "checkout.session.completed",
  "customer.created", "charge.dispute.created", "payout.paid",
];
const GITHUB = ["push", "pull_request", "check_run", "check_suite", "issue_comment", "pull_request_review", "issues", "workflow_run", "release", "create", "delete", "star"];
const SHOPIFY = ["orders/create", "orders/paid", "orders/updated", "products/update", "inventory_levels/update", "customers/create", "orders/fulfilled", "refunds/create", "carts/update", "checkouts/create"];

const LAYOUT = [
  { org: "Acme", provider: "stripe", userAgent: "Stripe/1.0 (+https://stripe.com/docs/webhooks)", eventTypes: STRIPE,
    endpoints: [["payments", 0.30, false], ["billing", 0.15, false], ["checkout", 0.08, true], ["crm", 0.02, false]] },
  { org: "Globex", provider: "github", userAgent: "GitHub-Hookshot/a1b2c3d", eventTypes: GITHUB,
    endpoints: [["ci", 0.15, false], ["deploys", 0.10, false], ["issues-bot", 0.05, false]] },
  { org: "Initech", provider: "shopify", userAgent: "Shopify-Captain-Hook", eventTypes: SHOPIFY,
    endpoints: [["orders", 0.10, false], ["inventory", 0.05, false]] },
] as const;

export type BenchTenant = Awaited<ReturnType<typeof createOrganizationFixture>> & { name: string; endpoints: (SeedEndpoint & { name: string })[] };

/** Creates the organizations and endpoints through the real verbs. */
export async function createTenants(): Promise<BenchTenant[]> {
  const tenants: BenchTenant[] = [];
  for (const layout of LAYOUT) {
    const org = await createOrganizationFixture(layout.org);
    const endpoints: BenchTenant["endpoints"] = [];
    for (const [name, share, failing] of layout.endpoints) {
      const endpoint = await createEndpoint({
        ctx: org.ctx,
        input: { name, provider: layout.provider, secret: "whsec_YmVuY2hzZWNyZXRiZW5jaHNlY3JldA==", destinationUrl: "http://127.0.0.1:9/hook", alertPendingAgeSeconds: 600 },
      });
      endpoints.push({ id: endpoint.id, name, organizationId: org.organizationId, share, failing, eventTypes: [...layout.eventTypes], userAgent: layout.userAgent });
    }
    tenants.push({ ...org, name: layout.org, endpoints });
  }
  return tenants;
}
