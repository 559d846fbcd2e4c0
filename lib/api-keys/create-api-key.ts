import { apiKeys } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { ValidationError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { generateApiKey } from "./api-key-format";

/** Creates a key for ctx's organization; the full key is returned here and never again. */
export async function createApiKey({ ctx, input }: { ctx: Ctx; input: { name?: string } }) {
  const name = (input.name ?? "").trim() || "API key";
  if (name.length > 200) throw new ValidationError("Use at most 200 characters for the key's name.");
  const { key, prefix, keyHash } = generateApiKey();
  const [row] = await ctx.db
    .insert(apiKeys)
    .values({ id: newId("key"), organizationId: ctx.organizationId, name, prefix, keyHash })
    .returning({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt });
  return { ...row!, apiKey: key };
}
