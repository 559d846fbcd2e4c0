// `npm run start:web`: the web server alone, for production (run the worker with `npm run start:worker`).
// Needs DATABASE_URL; applies migrations; builds only when there is no build.
import { stopOnInvalidConfig } from "@/lib/config/config";
import { migrateDatabase } from "./migrate";
import { ensureNextBuild, nextStartArgs } from "./next-build";
import { resolveEnvironment } from "./resolve-environment";
import { onTerminationSignal, startChild, stopChild } from "./child-processes";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

const log = (line: string) => logger.info(`[start:web] ${line}`);

stopOnInvalidConfig("start:web");
try {
  const { env, databaseUrl, port } = await resolveEnvironment({ allowEmbeddedDatabase: false, log });
  await migrateDatabase(databaseUrl);
  await ensureNextBuild("start:web", { env, onlyIfMissing: true });
  const web = startChild(process.execPath, nextStartArgs(process.cwd(), port), env);
  let stopping = false;
  onTerminationSignal(() => {
    stopping = true;
    void stopChild(web, 30_000);
  });
  web.on("exit", (code) => process.exit(stopping ? 0 : (code ?? 1)));
} catch (error) {
  logger.error(`[start:web] ${describeErrorBriefly(error)}`);
  process.exit(1);
}
