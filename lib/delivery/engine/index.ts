// The delivery engine's front door: what moves deliveries (claim, attempt, finish, rescue, a resume's wake-up)
// and the settings and schedule they run on. Code outside lib/delivery/engine imports the engine from here
// only; its statements and batching stay behind it (tests may reach further in).
export { attemptDelivery, CHAIN_LIMIT, type AttemptResult } from "./attempt-delivery";
export { claimDelivery, type Claimed } from "./claim-delivery";
export type { ClaimedAttempt, ClaimRefusal, ClaimResult } from "./claimed-attempt";
export { finishAttempt, type Settlement, type SlotFate } from "./finish-attempt";
export { leaseDeliveries, type Lease, type Leased } from "./lease-deliveries";
export { answerLeases, expireLeases, LEASE_EXPIRED, type LeaseAnswer } from "./settle-leases";
export { rescueDeliveries } from "./rescue-deliveries";
export { scheduleRateWake, wakeRateLimited } from "./wake-rate-limited";
export { wakeResumedDestination } from "./wake-resumed-destination";
export { deliverySettings, retryMaxDelayMs, type DeliverySettings } from "./settings";
export { retryDelayMs } from "./retry-schedule";
export { buildOutboundHeaders } from "./outbound-headers";
