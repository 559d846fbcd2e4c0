// The daily digest's days (lib/digest): a row per organization and UTC day a digest went out, inserted in the
// transaction that queues its mail, so the key makes it once a day across workers and restarts.
import { date, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { organizations } from "./tenants";

export const digestSends = pgTable(
  "digest_sends",
  {
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** The UTC day it is the digest of. */
    day: date({ mode: "string" }).notNull(),
    mailId: text(),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.day] })],
);
