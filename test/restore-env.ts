// Setup file of the unit files, which share worker processes (vitest.config.ts, project "shared"): each file gets
// back, after its last test, the environment it started with, so that a variable one file sets is not the next's.
import { afterAll } from "vitest";

const atStart = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in atStart)) delete process.env[name];
  Object.assign(process.env, atStart);
});
