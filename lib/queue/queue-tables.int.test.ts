// The queue reads graphile-worker's private tables as one version lays them out, so the worker
// refuses to start against a database another version has migrated.
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { checkQueueVersion, QUEUE_VERSION } from "./queue-tables";

useTestDatabase();

describe("the queue's version check", () => {
  it("passes on a database migrated by the installed graphile-worker", async () => {
    await expect(checkQueueVersion(getSql())).resolves.toBeUndefined();
  });

  it("refuses a database a later graphile-worker has migrated", async () => {
    await getSql()`insert into graphile_worker.migrations (id) values (${QUEUE_VERSION.migration + 1})`;
    await expect(checkQueueVersion(getSql())).rejects.toThrow(/migration 20/);
  });
});
