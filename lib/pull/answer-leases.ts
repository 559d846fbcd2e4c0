// POST …/ack and …/nack (API.md "Pull destinations"): a lease's holder says how its attempt went — an ack
// delivers, a nack is a failed attempt, retried under the destination's settings (lib/delivery/engine/settle-leases.ts).
// A lease id that is unknown, expired or settled already is answered in `unknown`, never an error for the others.
import { getSql } from "@/db";
import type { Ctx } from "@/lib/context";
import { answerLeases, deliverySettings, type LeaseAnswer } from "@/lib/delivery/engine";
import { isId } from "@/lib/ids";
import { parseInput } from "@/lib/validation";
import { AckInput, NackInput, type AckOutput, type NackOutput } from "./pull-input";
import { pullDestinationOrThrow } from "./pull-destination";

type Target = { endpointId: string; destinationId: string; body: unknown };

export async function ackLeases({ ctx, input }: { ctx: Ctx; input: Target }): Promise<AckOutput> {
  const { leaseIds } = parseInput(AckInput, input.body);
  const { settled, unknown } = await answer(ctx, input, leaseIds, { kind: "ack" });
  return { acked: settled, unknown };
}

export async function nackLeases({ ctx, input }: { ctx: Ctx; input: Target }): Promise<NackOutput> {
  const { leaseIds, retryAfterSeconds } = parseInput(NackInput, input.body);
  const { settled, unknown } = await answer(ctx, input, leaseIds, { kind: "nack", retryAfterMs: retryAfterSeconds === undefined ? null : retryAfterSeconds * 1000 });
  return { nacked: settled, unknown };
}

async function answer(ctx: Ctx, input: Target, leaseIds: string[], how: LeaseAnswer): Promise<{ settled: string[]; unknown: string[] }> {
  const destination = await pullDestinationOrThrow(ctx, input);
  const named = [...new Set(leaseIds)];
  const ours = named.filter((id) => isId("lse", id));
  const settled = ours.length === 0 ? new Set<string>()
    : await answerLeases(getSql(), { organizationId: ctx.organizationId, destinationId: destination.id, leaseIds: ours, answer: how, settings: deliverySettings() });
  return { settled: named.filter((id) => settled.has(id)), unknown: named.filter((id) => !settled.has(id)) };
}
