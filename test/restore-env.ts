// Setup file of the test files that share worker processes (vitest.config.ts, project "shared"): each file gets
// back, after its last test, the environment it started with, so that a variable one file sets is not the next's.
// A helper sets what a file needs in its hooks or functions, not when imported: a module is imported once a process.
import { afterAll } from "vitest";

const atStart = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in atStart)) delete process.env[name];
  Object.assign(process.env, atStart);
});
