// The retention tests' shared fixtures (lib/retention/apply-retention*.int.test.ts).
import { getSql } from "@/db";
import type { RetentionSettings } from "@/lib/retention/retention-settings";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";

/** A sweep with no rests and room for everything a test seeds. */
export const unbounded: RetentionSettings = { batchSize: 1_000, runMs: 60_000, rowsPerRun: 1_000_000, pauseFactor: 0 };

/** A new organization keeping `retentionDays`, with an endpoint. */
export async function organization(retentionDays: number) {
  const org = await createOrganizationFixture(`Retention ${retentionDays}`);
  await getSql()`update organizations set retention_days = ${retentionDays} where id = ${org.organizationId}`;
  const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
  return { ...org, endpointId: endpoint.id };
}
