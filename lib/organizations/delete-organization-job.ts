// The delete-organization job's name, payload and spec, shared by deleteOrganization (which queues it
// in its own transaction) and jobs/delete-organization.ts (which runs it and queues its sequels).
import { z } from "zod";
import type { JobSpec } from "@/lib/queue/enqueue";

export const DELETE_ORGANIZATION_TASK = "delete-organization";

/** Checked at run time: a job enqueued by an older release may carry an older shape. */
export const DeleteOrganizationPayload = z.object({
  organizationId: z.string().min(1).max(100),
  /**
   * The last pass, a while after the rest: it removes what ingest stored meanwhile through an endpoint
   * it still had cached, then the organization's row, whose deletion takes the small tables with it.
   */
  final: z.boolean().default(false),
});
export type DeleteOrganizationPayload = z.input<typeof DeleteOrganizationPayload>;

/** How long after the bulk of the data the final pass runs: well past the ingest endpoint cache (5 s) and a store's deadline. */
export const FINAL_PASS_DELAY_MS = 60_000;

export function deleteOrganizationJobSpec(payload: DeleteOrganizationPayload, runAt?: Date): JobSpec {
  return {
    identifier: DELETE_ORGANIZATION_TASK,
    payload: { ...payload },
    run_at: runAt ? runAt.toISOString() : null,
    max_attempts: 25,
  };
}
