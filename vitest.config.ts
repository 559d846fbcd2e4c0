import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const include = ["{lib,jobs,db,test,app,components}/**/*.test.ts"];
// The fault suites start their own PostgreSQL and `npm start`s: test/faults/vitest.config.ts runs them.
const exclude = [...configDefaults.exclude, "**/*.fault.test.ts"];
const integration = "**/*.int.test.ts";
// Unit files that need a process of their own: the password hasher's threads take their nice value when first made.
const ownProcess = ["lib/crypto/password-hasher.test.ts"];

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    // Generous: CI runs this beside Playwright and the fault suites on 2 cores (load average ~20), where a test
    // that takes 2-4 s alone has taken 30 s. How long a test takes is never what it checks (bench/ measures that).
    testTimeout: 90_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Vitest's default on 2 cores is one file at a time; the files mostly wait on PostgreSQL and local
    // servers. Whole suite (133 files) measured here: 168 s with 3, against ~550 s with the default.
    maxWorkers: 3,
    // In-process route calls carry X-Forwarded-For as the web server's peer hook leaves it
    // (lib/http/peer-address-hook.cjs): its last entry stands for the socket peer.
    // PASSWORD_HASH_NICE 0: every organization fixture hashes its owner's password, and at the product's nice 10
    // the run's own load starves those threads: 5 fixtures took 12.5-13.5 s beside 4 busy loops (2.3-2.5 s at 0),
    // and apply-retention's "takes turns" passed 30 s in CI three times. The sign-in storm's server keeps the default.
    // PASSWORD_HASH_COST 12: scrypt at 2^12 is 8× cheaper than the product's 2^15; at 2^15 the fixtures' ~370
    // hashes were 41 s of the vitest workers' 192 s of CPU. Hashing itself is tested at the default cost
    // (lib/crypto/password.test.ts), the sign-in storm with its accounts at it (sign-in-storm.solo.int.test.ts).
    env: { INBOX_PEER_ADDRESS_APPENDED: "1", PASSWORD_HASH_NICE: "0", PASSWORD_HASH_COST: "12" },
    projects: [
      // The unit files (no database) run one after another in worker processes that keep their imported modules
      // (isolate: false): a process and a fresh import of the modules for each file cost more than its tests.
      // 86 files, measured beside a seed: 115 s wall and 90 s of CPU isolated, 32 s and 22 s shared.
      { extends: true, test: { name: "shared", include, exclude: [...exclude, integration, ...ownProcess], isolate: false, setupFiles: ["test/restore-env.ts"] } },
      // The integration files each in a process of their own: their modules keep per-process state (the ingest
      // limiter, the gates, the pools) built from the environment the file sets. Each clones the run's template
      // database (test/global-setup.ts).
      { extends: true, test: { name: "isolated", include: [integration, ...ownProcess], exclude, globalSetup: ["test/global-setup.ts"] } },
    ],
  },
});
