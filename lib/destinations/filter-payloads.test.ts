// Destination filters on realistic payloads: a Stripe invoice and a GitHub pull request, routed and stopped.
import { describe, expect, it } from "vitest";
import { compiled, request } from "@/test/filter-fixtures";
import { parseFilterBody } from "./filter-input";

describe("realistic payloads", () => {
  const stripeInvoice = {
    id: "evt_1Q2w3E4r5T6y7U8i",
    object: "event",
    api_version: "2024-06-20",
    created: 1767225600,
    livemode: true,
    type: "invoice.payment_succeeded",
    data: {
      object: {
        id: "in_1Q2w3E",
        object: "invoice",
        amount_due: 2500,
        amount_paid: 2500,
        currency: "eur",
        customer: "cus_Abc123",
        customer_email: "billing@example.com",
        metadata: { plan: "pro" },
        lines: {
          object: "list",
          data: [
            { id: "il_1", amount: 2000, price: { id: "price_pro_monthly", recurring: { interval: "month" } } },
            { id: "il_2", amount: 500, price: { id: "price_addon_seats", recurring: { interval: "month" } } },
          ],
        },
        discount: null,
      },
    },
  };
  const stripeFilter = {
    headers: { "Stripe-Signature": { $exist: true } },
    body: {
      type: { $startsWith: "invoice." },
      livemode: true,
      data: {
        object: {
          amount_due: { $gte: 1000 },
          currency: { $in: ["eur", "usd"] },
          customer_email: { $not: { $endsWith: "@test.example.com" } },
          lines: { data: { price: { id: "price_addon_seats" } } },
        },
      },
    },
  };
  const stripeHeaders = { "stripe-signature": "t=1767225600,v1=abc", "content-type": "application/json; charset=utf-8" };
  const stripeBody = parseFilterBody(Buffer.from(JSON.stringify(stripeInvoice)), "application/json; charset=utf-8");

  it("Stripe: routes a paid invoice over 10 EUR with an add-on line", () => {
    const match = compiled(stripeFilter);
    expect(match(request({ body: stripeBody, headers: stripeHeaders, path: "/in/stripe" }))).toBe(true);
  });

  it("Stripe: each unmet condition stops it", () => {
    const match = compiled(stripeFilter);
    const variant = (edit: (event: typeof stripeInvoice) => void) => {
      const event = structuredClone(stripeInvoice);
      edit(event);
      return match(request({ body: event, headers: stripeHeaders }));
    };
    expect(variant(() => {})).toBe(true);
    expect(variant((event) => { event.type = "customer.created"; })).toBe(false);
    expect(variant((event) => { event.livemode = false; })).toBe(false);
    expect(variant((event) => { event.data.object.amount_due = 999; })).toBe(false);
    expect(variant((event) => { event.data.object.currency = "gbp"; })).toBe(false);
    expect(variant((event) => { event.data.object.customer_email = "a@test.example.com"; })).toBe(false);
    expect(variant((event) => { event.data.object.lines.data.pop(); })).toBe(false);
    expect(match(request({ body: stripeBody, headers: { "content-type": "application/json" } }))).toBe(false);
  });

  const githubPullRequest = {
    action: "labeled",
    number: 42,
    label: { name: "deploy" },
    pull_request: {
      title: "Release: v2.3.0",
      draft: false,
      merged: false,
      labels: [{ id: 1, name: "deploy" }, { id: 2, name: "backend" }],
      base: { ref: "main" },
      head: { ref: "release/2.3.0" },
      user: { login: "octocat", type: "User" },
    },
    repository: { full_name: "acme/api", private: true },
    sender: { login: "octocat" },
  };
  const githubFilter = {
    headers: { "X-GitHub-Event": { $in: ["pull_request", "pull_request_target"] } },
    body: {
      action: { $in: ["opened", "reopened", "labeled", "synchronize"] },
      pull_request: {
        draft: false,
        base: { ref: "main" },
        head: { ref: { $startsWith: "release/" } },
        labels: { name: "deploy" },
        user: { type: { $neq: "Bot" } },
      },
      repository: { full_name: { $in: ["acme/api", "acme/web"] } },
    },
    $not: { body: { pull_request: { title: { $contains: "[skip deploy]" } } } },
  };
  const githubHeaders = { "x-github-event": "pull_request", "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958" };

  it("GitHub: routes a labeled release PR into main", () => {
    const match = compiled(githubFilter);
    expect(match(request({ body: githubPullRequest, headers: githubHeaders, path: "/in/github" }))).toBe(true);
  });

  it("GitHub: each unmet condition stops it", () => {
    const match = compiled(githubFilter);
    const variant = (edit: (event: typeof githubPullRequest) => void, headers = githubHeaders) => {
      const event = structuredClone(githubPullRequest);
      edit(event);
      return match(request({ body: event, headers }));
    };
    expect(variant(() => {})).toBe(true);
    expect(variant(() => {}, { ...githubHeaders, "x-github-event": "issues" })).toBe(false);
    expect(variant((event) => { event.action = "closed"; })).toBe(false);
    expect(variant((event) => { event.pull_request.draft = true; })).toBe(false);
    expect(variant((event) => { event.pull_request.base.ref = "develop"; })).toBe(false);
    expect(variant((event) => { event.pull_request.head.ref = "feature/x"; })).toBe(false);
    expect(variant((event) => { event.pull_request.labels = [{ id: 2, name: "backend" }]; })).toBe(false);
    expect(variant((event) => { event.pull_request.user.type = "Bot"; })).toBe(false);
    expect(variant((event) => { event.repository.full_name = "evil/api"; })).toBe(false);
    expect(variant((event) => { event.pull_request.title = "Release [skip deploy]"; })).toBe(false);
  });
});
