import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const DIRS = ["lib", "jobs", "db", "test", "app", "components"];
const include = [`{${DIRS.join(",")}}/**/*.test.ts`];
// The fault suites start their own PostgreSQL and `npm start`s: test/faults/vitest.config.ts runs them.
const exclude = [...configDefaults.exclude, "**/*.fault.test.ts"];

/**
 * Variables the code reads through config() at each use, never into an object kept for the process: a file that
 * sets only these can share a process with other files (test/restore-env.ts gives each file its starting
 * environment back).
 */
const READ_AT_USE = new Set(["INBOX_ALLOW_PRIVATE_DESTINATIONS", "DELIVERY_LOG", "INBOX_SEARCH_WINDOW", "METRICS_TOKEN", "SMTP_URL", "MAIL_FROM", "APP_URL", "DATABASE_URL"]);

/**
 * Test files that need a process of their own: those that replace a module (vi.mock needs the file's own module
 * registry); those that set a variable some module reads once into what it keeps for the process (ORG_INGEST_RATE
 * into the ingest limiter, QUARANTINE_* into the quarantine gate, …); the password hasher's, whose threads take
 * their nice value when first made; the solo files, which time a load they make (test/run-all.ts runs them alone).
 */
function needsOwnProcess(file: string): boolean {
  const source = readFileSync(file, "utf8");
  if (/\bvi\.(do)?mock\(|\bvi\.stubEnv\(|Object\.assign\(process\.env|process\.env\[/.test(source)) return true;
  const written = [...source.matchAll(/(?:delete\s+process\.env\.([A-Z_0-9]+))|(?:process\.env\.([A-Z_0-9]+)\s*(?:\?\?)?=(?!=))/g)];
  return written.some((m) => !READ_AT_USE.has(m[1] ?? m[2]!)) || file === "lib/crypto/password-hasher.test.ts" || file.endsWith(".solo.int.test.ts");
}

const ownProcess = DIRS.flatMap((dir) => (readdirSync(dir, { recursive: true, encoding: "utf8" }) as string[]).map((file) => `${dir}/${file}`))
  .filter((file) => file.endsWith(".test.ts") && !file.endsWith(".fault.test.ts") && needsOwnProcess(file));

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
    // AUTH_SECRET and APP_URL as test/fixtures.ts sets them for the benches, here before any file: a module is
    // imported once in a shared process, so it cannot set them for each file.
    env: {
      INBOX_PEER_ADDRESS_APPENDED: "1", PASSWORD_HASH_NICE: "0", PASSWORD_HASH_COST: "12",
      AUTH_SECRET: "test-auth-secret-not-for-production", APP_URL: "http://inbox.test",
    },
    // Each project that has database tests makes its template database (test/db.ts clones it for each file).
    globalSetup: ["test/global-setup.ts"],
    projects: [
      // Files run one after another in worker processes that keep their imported modules (isolate: false): a
      // process and a fresh import of the app's modules for each file cost more than most files' tests. Measured
      // beside a seed, the same files each way: 85 unit files 115 s wall and 90 s of the workers' CPU isolated,
      // 32 s and 22 s shared; 104 integration files 563 s and 283 s isolated, 429 s and 134 s shared.
      { extends: true, test: { name: "shared", include, exclude: [...exclude, ...ownProcess], isolate: false, setupFiles: ["test/restore-env.ts"] } },
      { extends: true, test: { name: "own-process", include: ownProcess, exclude } },
    ],
  },
});
