// The endpoint page's quarantine on the real product (web + worker): requests signed with a secret the
// endpoint does not know yet are listed with reason, time and source; "Re-verify quarantined" shows a
// count first and delivers them once confirmed.
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { createEndpoint, e2eDatabaseUrl, receivedAtLeast, signUp, startDestination } from "./dashboard-helpers";

test("quarantine: listed, counted by a dry run, delivered on confirm", async ({ page, request }) => {
  test.setTimeout(120_000);
  const destination = await startDestination(200);
  const sql = postgres(e2eDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    await signUp(page, "Quarantine Co");
    const endpoint = await createEndpoint(page, "Orders", destination.url);
    const newSecret = `whsec_${randomBytes(24).toString("base64")}`;
    for (const n of [1, 2]) {
      const body = JSON.stringify({ type: "order.paid", n });
      const id = `msg_${randomBytes(8).toString("hex")}`;
      const at = new Date();
      const headers = { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(newSecret).sign(id, at, body) };
      expect((await request.post(endpoint.ingestUrl, { data: body, headers })).status()).toBe(401);
    }
    await page.goto(`/endpoints/${endpoint.id}`);
    await expect(page.getByTestId("quarantined-request")).toHaveCount(2);
    await expect(page.getByTestId("quarantined-request").first()).toContainText("Signature did not match");
    await expect(page.getByTestId("quarantined-request").first()).toContainText(/127\.0\.0\.1|::1/);
    await expect(page.getByTestId("quarantined-request").first()).toContainText(/ago/);

    // The endpoint learns the new secret. The job a rotation queues would admit them at once; holding
    // their rows (it skips rows another re-verify holds) leaves them to the button.
    await sql.begin(async (tx) => {
      await tx`select 1 from quarantined_requests where endpoint_id = ${endpoint.id} for update`;
      await page.getByLabel("New secret (optional)").fill(newSecret);
      await page.getByRole("button", { name: "Rotate signing secret" }).click();
      await expect(page.getByText("Secret rotated.")).toBeVisible();
      // Both passes of the job (the second 15 s after the first) have run and left them.
      await expect.poll(async () => (await tx`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'reverify-quarantine'`)[0]!.n, { timeout: 60_000 }).toBe(0);
    });
    await page.reload();
    await page.getByRole("button", { name: "Re-verify quarantined…" }).click();
    await expect(page.getByTestId("reverify-preview")).toContainText("2 quarantined requests now verify");
    expect(destination.requests).toHaveLength(0); // a dry run changes nothing
    await page.getByRole("button", { name: "Deliver 2 quarantined requests" }).click();
    await expect(page.getByText("2 quarantined requests verified and became deliveries.")).toBeVisible();
    await receivedAtLeast(destination, 2);
    expect(destination.requests.map((r) => JSON.parse(r.body).n).sort()).toEqual([1, 2]);
    await expect(page.getByTestId("quarantined-request")).toHaveCount(0);
  } finally {
    await sql.end();
    await destination.close();
  }
});
