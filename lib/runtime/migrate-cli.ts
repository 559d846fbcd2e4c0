// `npm run db:migrate`: brings DATABASE_URL's database to the current schema (ours and graphile-worker's).
import { config, stopOnInvalidConfig } from "@/lib/config/config";
import { migrateDatabase } from "./migrate";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

stopOnInvalidConfig("db:migrate");
const url = config().DATABASE_URL;
if (!url) {
  logger.error("[db:migrate] DATABASE_URL is required");
  process.exit(1);
}
try {
  await migrateDatabase(url);
  logger.info("[db:migrate] database is up to date");
} catch (error) {
  logger.error(`[db:migrate] ${describeErrorBriefly(error)}`);
  process.exit(1);
}
