// The fault suites (`*.fault.test.ts`): each file starts its own PostgreSQL and `npm start`, and
// breaks something. Run apart from the default suite (test/run-all.ts runs them after it):
//   npx vitest run --config test/faults/vitest.config.ts
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("../..", import.meta.url)) } },
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/faults/**/*.fault.test.ts"],
    globalSetup: ["test/faults/global-setup.ts"],
    // Every file runs at once: most of a scenario is waiting (a two-minute outage, a backoff).
    fileParallelism: true,
    maxWorkers: 8,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
  },
});
