import { describe, expect, it } from "vitest";
import { describeAuditDetails } from "./describe-audit-details";

describe("describes an entry's details for people", () => {
  it("a change: each field with its new value, a secret only as changed", () => {
    expect(describeAuditDetails("endpoint.updated", { fields: ["name", "maxAttempts", "secret"], changes: { name: "Billing", maxAttempts: 3 } }))
      .toEqual(["name → “Billing”", "maxAttempts → 3", "secret changed"]);
    expect(describeAuditDetails("organization.updated", { fields: [], changes: {} })).toEqual(["Nothing changed"]);
  });

  it("a bulk action: the count and the filter", () => {
    expect(describeAuditDetails("deliveries.replayed", { filter: { endpointId: "ep_1", status: "dead" }, count: 1050 }))
      .toEqual(["1,050 deliveries replayed, matching endpointId “ep_1”, status “dead”"]);
    expect(describeAuditDetails("deliveries.buried", { filter: {}, count: 1, interrupted: true }))
      .toEqual(["1 delivery buried, every delivery", "Interrupted: only these were changed"]);
  });

  it("a rotation and anything else", () => {
    expect(describeAuditDetails("endpoint.secret_rotated", { generated: true, previousSecretValidUntil: "2026-12-03T04:00:00.123Z" }))
      .toEqual(["New secret generated", "Previous secret verifies until 2026-12-03 04:00:00 UTC"]);
    expect(describeAuditDetails("api_key.created", { role: "viewer", name: "CI" })).toEqual(["name: “CI”", "role: “viewer”"]);
    expect(describeAuditDetails("endpoint.created", { paused: false, alertEmail: null, name: "Orders", maxAttempts: 8, destinationUrl: "http://x.test/h", provider: "stripe" }))
      .toEqual(["name: “Orders”", "provider: “stripe”", "destinationUrl: “http://x.test/h”", "paused: false · maxAttempts: 8"]);
  });
});
