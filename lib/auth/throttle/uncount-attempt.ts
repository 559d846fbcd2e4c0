import { getAuthSql } from "@/db";

/**
 * Takes back the attempt countAttempt counted, for an attempt that did not fail: a right password
 * (the account's failures are forgiven too, `resetKeys`) or one never checked because hashing was busy.
 * The address's earlier failures stay: a success from an address does not clear what it tried before.
 */
export async function uncountAttempt(keys: string[], resetKeys: string[] = []): Promise<void> {
  if (keys.length === 0 && resetKeys.length === 0) return;
  const all = [...new Set([...keys, ...resetKeys])].sort();
  await getAuthSql()`
    update auth_throttles set count = case when key = any(${resetKeys}::text[]) then 0 else greatest(count - 1, 0) end
    where key in (select key from auth_throttles where key = any(${all}::text[]) order by key for update)`;
}
