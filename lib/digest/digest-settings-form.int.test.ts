// The dashboard's digest form (Settings): the same verb and rules as PATCH /api/v1/organization {digest}.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { getOrganization } from "@/lib/organizations/get-organization";
import { actionOutcome, asSession, formOf, memberWithSession } from "@/test/dashboard-session";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { digestChangesFromForm } from "./digest-changes-from-form";

vi.mock("next/headers", async () => (await import("@/test/dashboard-session")).nextHeadersModule);
vi.mock("next/cache", async () => (await import("@/test/dashboard-session")).nextCacheModule);
vi.mock("@/lib/auth/auth", async () => (await import("@/test/dashboard-session")).authModule);

useTestDatabase();

describe("the digest form's fields", () => {
  it("no hour is off; recipients by commas, spaces or lines, none meaning the owners; an hour not in digits goes to the API as typed", () => {
    expect(digestChangesFromForm(formOf({ hourUtc: "", recipients: "a@example.test" }))).toEqual({ digest: null });
    expect(digestChangesFromForm(formOf({ hourUtc: "7", recipients: "" }))).toEqual({ digest: { hourUtc: 7 } });
    expect(digestChangesFromForm(formOf({ hourUtc: " 23 ", recipients: "a@example.test,\nb@example.test ; c@example.test" }))).toEqual({
      digest: { hourUtc: 23, recipients: ["a@example.test", "b@example.test", "c@example.test"] },
    });
    expect(digestChangesFromForm(formOf({ hourUtc: "7am" }))).toEqual({ digest: { hourUtc: "7am" } });
  });
});

describe("the Settings page's digest action", () => {
  let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
  let admin: Awaited<ReturnType<typeof memberWithSession>>;
  beforeAll(async () => {
    acme = await createOrganizationFixture("Acme");
    admin = await memberWithSession(acme.organizationId, "admin");
  });

  it("saves the hour and members as recipients, refuses others with the API's message, and turns it off", async () => {
    const { updateDigestAction } = await import("@/app/(dashboard)/settings/actions");
    const submit = (fields: Record<string, string>) => asSession(admin.sessionId, () => actionOutcome(() => updateDigestAction(acme.organizationId, {}, formOf(fields))));
    expect(await submit({ hourUtc: "9", recipients: `${admin.email}, ${acme.email}` })).toBe("allowed");
    expect((await getOrganization({ ctx: acme.ctx })).digest).toEqual({ hourUtc: 9, recipients: [admin.email, acme.email] });
    expect(await submit({ hourUtc: "9", recipients: "stranger@example.test" })).toBe(
      "error: digest.recipients must be members of the organization; not a member: stranger@example.test",
    );
    expect(await submit({ hourUtc: "24", recipients: "" })).toMatch(/digest.hourUtc must be a whole hour from 0 to 23/);
    expect((await getOrganization({ ctx: acme.ctx })).digest).toEqual({ hourUtc: 9, recipients: [admin.email, acme.email] });
    expect(await submit({ hourUtc: "", recipients: "" })).toBe("allowed");
    expect((await getOrganization({ ctx: acme.ctx })).digest).toBeNull();
  });
});
