// Sign-in state: dashboard sessions (revocable; the JWT only names one) and the sign-in/sign-up
// throttle's counters. Part of the one schema (db/schema.ts re-exports it).
import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { organizations, users } from "./tenants";


/** One signed-in browser. Deleting the row ends it: the cookie's JWT names it and every request checks it. */
export const sessions = pgTable(
  "sessions",
  {
    id: text().primaryKey(),
    userId: text().notNull().references(() => users.id, { onDelete: "cascade" }),
    /**
     * The organization this session works in now (its membership is checked on every request); null
     * for a user with no organization left, who sees only the page to create one.
     */
    organizationId: text().references(() => organizations.id, { onDelete: "cascade" }),
    createdAt: tstz().notNull().defaultNow(),
    /** Refreshed at most once a minute, not per request. */
    lastSeenAt: tstz().notNull().defaultNow(),
    expiresAt: tstz().notNull(),
  },
  (t) => [index().on(t.userId), index().on(t.organizationId)],
);

/**
 * Attempts per key (`account:<email>`, `address:<ip>`, `signup:<ip>`) in a fixed window, shared by
 * every web process. Rows whose window ended long ago are swept now and then by the attempts themselves.
 */
export const authThrottles = pgTable(
  "auth_throttles",
  {
    key: text().primaryKey(),
    count: integer().notNull(),
    windowEndsAt: tstz().notNull(),
  },
  (t) => [index().on(t.windowEndsAt)],
);
