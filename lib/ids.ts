import { randomBytes } from "node:crypto";

export type IdPrefix = "usr" | "org" | "ep" | "dlv" | "key" | "inc" | "mail";

/** A prefixed, random, URL-safe id with 128 bits of entropy, e.g. `ep_3k9x…`. */
export function newId(prefix: IdPrefix): string {
  const value = BigInt(`0x${randomBytes(16).toString("hex")}`);
  return `${prefix}_${value.toString(36).padStart(25, "0")}`;
}
