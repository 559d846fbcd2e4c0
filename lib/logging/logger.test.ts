import { describe, expect, it } from "vitest";
import { logDelivery } from "@/lib/logging/log-delivery";
import { captureLogs } from "@/test/captured-logs";
import { logger } from "./logger";

const PASSWORD = "hunter2-Sup3rSecret";
const KEY_HASH = "c0ffee1234deadbeefkeyhash9876";

describe("the logger redacts what a call site hands it", () => {
  it("takes URL credentials, query parameters, quoted values and link tokens out of a message", () => {
    const logs = captureLogs();
    const token = "Ab3_-".repeat(8) + "xyz";
    logger.info(`connecting to postgres://inbox:${PASSWORD}@db.test:5432/inbox`);
    logger.warn(`Failed task 12 (deliver) with error 'Failed query: select $1\nparams: ${KEY_HASH}'`);
    logger.error(`invalid input syntax for type integer: "${KEY_HASH}" at GET http://inbox.test/invite/${token}`);

    expect(logs.text()).not.toContain(PASSWORD);
    expect(logs.text()).not.toContain(KEY_HASH);
    expect(logs.text()).not.toContain(token);
    expect(logs.messages()).toEqual([
      "connecting to postgres://***@db.test:5432/inbox",
      "Failed task 12 (deliver) with error 'Failed query (statement and parameters not logged)",
      "invalid input syntax for type integer (value not logged) at GET http://inbox.test/invite/(token not logged)",
    ]);
    expect(logs.lines.map((line) => line.level)).toEqual(["info", "warn", "error"]);
  });

  it("serializes an error by describeError: its name, code, safe message and frames, never its query or parameters", () => {
    const logs = captureLogs();
    const error = Object.assign(new Error(`invalid input syntax for type timestamp with time zone: "${KEY_HASH}"`), {
      name: "PostgresError",
      code: "22007",
      query: `select cast($1::text as timestamptz) -- ${KEY_HASH}`,
      parameters: [`http://admin:${PASSWORD}@10.0.0.1/hook`],
    });
    logger.error({ err: error }, "[api] unexpected error");
    logger.error(new Error("Failed query: select $1\nparams: " + KEY_HASH, { cause: error }));

    expect(logs.text()).not.toContain(PASSWORD);
    expect(logs.text()).not.toContain(KEY_HASH);
    expect(logs.text()).not.toContain("10.0.0.1");
    const [described, wrapped] = logs.lines;
    expect(described!.msg).toBe("[api] unexpected error");
    expect(described!.err).toMatch(/^PostgresError \[22007\]: invalid input syntax for type timestamp with time zone \(value not logged\)\n\s+at /);
    // An error alone: its brief description is the message, the whole one the err field.
    expect(wrapped!.msg).toBe("Error: Failed query (statement and parameters not logged); cause: PostgresError [22007]: invalid input syntax for type timestamp with time zone (value not logged)");
    expect(wrapped!.err).toMatch(/^Error: Failed query \(statement and parameters not logged\)\n\s+at [\s\S]*\n {2}cause: PostgresError \[22007\]/);
  });

  it("censors header- and secret-like fields and strips credentials from string fields", () => {
    const logs = captureLogs();
    logger.warn(
      { headers: { authorization: `Bearer ${KEY_HASH}` }, request: { secret: KEY_HASH, body: KEY_HASH }, destination: `https://u:${PASSWORD}@dest.test/x` },
      "destination refused",
    );
    expect(logs.text()).not.toContain(KEY_HASH);
    expect(logs.text()).not.toContain(PASSWORD);
    expect(logs.lines[0]).toMatchObject({ headers: "[redacted]", request: { secret: "[redacted]", body: "[redacted]" }, destination: "https://***@dest.test/x" });
  });
});

describe("a line carries the ids bound where they are known", () => {
  it("as fields of its JSON line, from a child logger and the call itself", () => {
    const logs = captureLogs();
    const job = logger.child({ jobId: "4711", organizationId: "org_a" });
    job.info({ endpointId: "ep_b", deliveryId: "dlv_c" }, "[deliver] dlv_c attempt #1 → HTTP 200");
    expect(logs.text().split("\n")).toHaveLength(2); // one JSON line, newline-terminated
    expect(logs.lines[0]).toMatchObject({ level: "info", jobId: "4711", organizationId: "org_a", endpointId: "ep_b", deliveryId: "dlv_c", msg: "[deliver] dlv_c attempt #1 → HTTP 200" });
    expect(typeof logs.lines[0]!.time).toBe("string");
    expect(logs.lines[0]!.pid).toBe(process.pid);
  });

  it("for every line about a delivery (logDelivery), problems as warnings", () => {
    const logs = captureLogs();
    logDelivery({ deliveryId: "dlv_x", endpointId: "ep_y", organizationId: "org_z", jobId: "12" }, `attempt #2 (auto) → timeout; retry: POST http://u:${PASSWORD}@dest.test/ timed out`, "problem");
    logDelivery({ deliveryId: "dlv_x" }, "replay requested (user)");
    expect(logs.lines).toMatchObject([
      { level: "warn", deliveryId: "dlv_x", endpointId: "ep_y", organizationId: "org_z", jobId: "12", msg: "[deliver] dlv_x attempt #2 (auto) → timeout; retry: POST http://***@dest.test/ timed out" },
      { level: "info", deliveryId: "dlv_x", msg: "[deliver] dlv_x replay requested (user)" },
    ]);
  });

  it("not below the level (info by default)", () => {
    const logs = captureLogs();
    logger.debug("a detail nobody asked for");
    logger.info("said");
    expect(logs.messages()).toEqual(["said"]);
  });
});
