// wake-rate-limited: unparks a rate-limited destination's deliveries as its tokens come
// (lib/delivery/engine/wake-rate-limited.ts); asked for by a claim that found no token, and by itself.
import { wakeRateLimited } from "@/lib/delivery/engine";
import { registeredTask } from "@/lib/queue/job-registry";

export const wakeRateLimitedTask = registeredTask("wake-rate-limited", async ({ destinationId, dueAt }) => {
  await wakeRateLimited({ destinationId, dueAt });
});
