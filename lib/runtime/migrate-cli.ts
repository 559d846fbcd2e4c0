// `npm run db:migrate`: brings DATABASE_URL's database to the current schema (ours and graphile-worker's).
import { migrateDatabase } from "./migrate";
import { describeErrorBriefly } from "@/lib/logging/describe-error";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("[db:migrate] DATABASE_URL is required");
  process.exit(1);
}
try {
  await migrateDatabase(url);
  console.log("[db:migrate] database is up to date");
} catch (error) {
  console.error(`[db:migrate] ${describeErrorBriefly(error)}`);
  process.exit(1);
}
