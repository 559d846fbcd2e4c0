import type { Ctx } from "@/lib/context";
import { getEndpointRowOrThrow } from "./get-endpoint-or-throw";
import { presentEndpoint, type EndpointView } from "./present-endpoint";

export async function getEndpoint({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<EndpointView> {
  return presentEndpoint(await getEndpointRowOrThrow({ ctx, input }));
}
