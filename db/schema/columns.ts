// Column helpers every table file of the schema shares.
import { timestamp } from "drizzle-orm/pg-core";

/** A timestamptz, read as a Date. */
export const tstz = () => timestamp({ withTimezone: true, mode: "date" });
