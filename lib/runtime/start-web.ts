// `npm run start:web`: the web server alone, for production (run the worker with `npm run start:worker`).
// Needs DATABASE_URL; applies migrations; builds only when there is no build.
import { migrateDatabase } from "./migrate";
import { ensureNextBuild, nextStartArgs } from "./next-build";
import { resolveEnvironment } from "./resolve-environment";
import { onTerminationSignal, startChild, stopChild } from "./child-processes";
import { describeErrorBriefly } from "@/lib/logging/describe-error";

const log = (line: string) => console.log(`[start:web] ${line}`);

try {
  const { env } = await resolveEnvironment({ allowEmbeddedDatabase: false, log });
  await migrateDatabase(env.DATABASE_URL!);
  await ensureNextBuild("start:web", { env, onlyIfMissing: true });
  const web = startChild(process.execPath, nextStartArgs(process.cwd(), env.PORT!, env), env);
  let stopping = false;
  onTerminationSignal(() => {
    stopping = true;
    void stopChild(web, 30_000);
  });
  web.on("exit", (code) => process.exit(stopping ? 0 : (code ?? 1)));
} catch (error) {
  console.error(`[start:web] ${describeErrorBriefly(error)}`);
  process.exit(1);
}
