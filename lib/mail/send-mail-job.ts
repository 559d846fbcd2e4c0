// The send-mail job's name, payload and spec, shared by whoever queues mail and by jobs/send-mail.ts.
import { z } from "zod";
import type { JobSpec } from "@/lib/queue/enqueue";

export const SEND_MAIL_TASK = "send-mail";

/** Checked at run time: a job enqueued by an older release may carry an older shape. */
export const SendMailPayload = z.object({ organizationId: z.string().min(1), mailId: z.string().min(1) });
export type SendMailPayload = z.infer<typeof SendMailPayload>;

/**
 * graphile-worker retries a failed send after exp(min(attempt, 10)) seconds: 3 s, 7 s, 20 s, 55 s, … then
 * every ~6 h; 25 attempts cover about four days of SMTP outage.
 */
export const SEND_MAIL_MAX_ATTEMPTS = 25;

export function sendMailJobSpec(payload: SendMailPayload): JobSpec {
  return { identifier: SEND_MAIL_TASK, payload: { ...payload }, max_attempts: SEND_MAIL_MAX_ATTEMPTS };
}
