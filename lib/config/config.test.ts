import { afterEach, describe, expect, it } from "vitest";
import { config, ConfigError, configFrom, configProblems, describeConfig } from "./config";
import { CONFIG_VARIABLES, type Variable } from "./schema";

const saved = { ORG_INGEST_RATE: process.env.ORG_INGEST_RATE, TRUSTED_PROXIES: process.env.TRUSTED_PROXIES };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("defaults", () => {
  it("are the documented ones when a variable is unset, empty or blank", () => {
    for (const environment of [{}, { ORG_INGEST_RATE: "", RETENTION_PAUSE_FACTOR: "  " }]) {
      const values = configFrom(environment);
      expect(values.ORG_INGEST_RATE).toBe(120);
      expect(values.RETENTION_PAUSE_FACTOR).toBe(2);
      expect(values.DATABASE_STATEMENT_TIMEOUT_MS).toBe(15_000);
      expect(values.WORKER_STATEMENT_TIMEOUT_MS).toBe(0);
      expect(values.INBOX_ALLOW_PRIVATE_DESTINATIONS).toBe(false);
      expect(values.TRUSTED_PROXIES).toEqual([]);
      expect(values.MAIL_FROM).toBe("Webhook Inbox <alerts@localhost>");
      expect(values.SMTP_URL).toBeUndefined();
      expect(values.PASSWORD_HASH_CONCURRENCY).toBeGreaterThanOrEqual(1);
    }
  });

  it("allow private destinations with the embedded database unless told not to, and not with DATABASE_URL (issue #47)", () => {
    expect(configFrom({ INBOX_EMBEDDED_DATABASE: "true" }).INBOX_ALLOW_PRIVATE_DESTINATIONS).toBe(true);
    expect(configFrom({ INBOX_EMBEDDED_DATABASE: "true", INBOX_ALLOW_PRIVATE_DESTINATIONS: "false" }).INBOX_ALLOW_PRIVATE_DESTINATIONS).toBe(false);
    expect(configFrom({ INBOX_EMBEDDED_DATABASE: "false" }).INBOX_ALLOW_PRIVATE_DESTINATIONS).toBe(false);
    expect(configFrom({ INBOX_EMBEDDED_DATABASE: "false", INBOX_ALLOW_PRIVATE_DESTINATIONS: "true" }).INBOX_ALLOW_PRIVATE_DESTINATIONS).toBe(true);
  });

  it("derived from another variable follow it", () => {
    expect(configFrom({}).APP_URL).toBe("http://localhost:3000");
    expect(configFrom({ PORT: "3100" }).APP_URL).toBe("http://localhost:3100");
    expect(configFrom({ ORG_INGEST_RATE: "10" }).ORG_INGEST_BURST).toBe(20);
    expect(configFrom({ AUTH_SIGNIN_RATE: "3", AUTH_SIGNIN_BURST: "4" }).AUTH_SIGNIN_BURST).toBe(4);
    expect(configFrom({ AUTH_SECRET: "s3cret" }).INBOX_ENCRYPTION_KEY).toBe("s3cret");
    expect(configFrom({ AUTH_SECRET: "s3cret", INBOX_ENCRYPTION_KEY: "other" }).INBOX_ENCRYPTION_KEY).toBe("other");
  });

  it("are each within their own variable's bounds", () => {
    for (const [name, variable] of Object.entries(CONFIG_VARIABLES as Record<string, Variable<unknown>>)) {
      const value = variable.default;
      if (value === undefined || typeof value === "function" || Array.isArray(value)) continue;
      expect(variable.type.schema.safeParse(String(value)).success, name).toBe(true);
    }
  });
});

describe("values", () => {
  it("are parsed to their types, words case aside, a base URL without its trailing slash", () => {
    const values = configFrom({
      ORG_INGEST_RATE: " 0.5 ", WORKER_SYNCHRONOUS_COMMIT: "Remote_Write", INBOX_ALLOW_PRIVATE_DESTINATIONS: "TRUE",
      APP_URL: "https://inbox.example.com/", TRUSTED_PROXIES: " 10.0.0.0/8, ::1 ,", PASSWORD_HASH_NICE: "0",
    });
    expect(values.ORG_INGEST_RATE).toBe(0.5);
    expect(values.WORKER_SYNCHRONOUS_COMMIT).toBe("remote_write");
    expect(values.INBOX_ALLOW_PRIVATE_DESTINATIONS).toBe(true);
    expect(values.APP_URL).toBe("https://inbox.example.com");
    expect(values.TRUSTED_PROXIES).toEqual(["10.0.0.0/8", "::1"]);
    expect(values.PASSWORD_HASH_NICE).toBe(0);
  });

  it("keep a secret's every character (it is a key)", () => {
    expect(configFrom({ AUTH_SECRET: " key with spaces " }).AUTH_SECRET).toBe(" key with spaces ");
  });

  it("outside their bounds are refused", () => {
    const refused = {
      ORG_INGEST_RATE: "0", PASSWORD_HASH_NICE: "20", PORT: "70000", INDEX_BODIES_BUSY_SHARE: "1.5", WORKER_CONCURRENCY: "2.5",
      DATABASE_STATEMENT_TIMEOUT_MS: "-1", INBOX_ALLOW_PRIVATE_DESTINATIONS: "1", TRUSTED_PROXIES: "10.0.0.0/99",
      DELIVERY_LOG: "some", SMTP_URL: "http://mail.example.com", APP_URL: "inbox.example.com",
    };
    expect(configProblems(refused).map((line) => line.split("=")[0]).sort()).toEqual(Object.keys(refused).sort());
  });
});

describe("a bad value", () => {
  it("is named with what the variable accepts", () => {
    expect(() => configFrom({ ORG_INGEST_RATE: "abc" }).ORG_INGEST_RATE).toThrow('ORG_INGEST_RATE="abc": a number greater than 0 expected');
    expect(configProblems({ PASSWORD_HASH_NICE: "20", TRUSTED_PROXIES: "not-a-cidr" })).toEqual([
      'TRUSTED_PROXIES="not-a-cidr": comma-separated IP addresses or CIDR blocks such as 10.0.0.0/8, ::1 expected',
      'PASSWORD_HASH_NICE="20": a whole number from 0 to 19 expected',
    ]);
  });

  it("is told once with every other problem, a default derived from it adding none", () => {
    expect(configProblems({ ORG_INGEST_RATE: "abc", WORKER_SYNCHRONOUS_COMMIT: "maybe" })).toEqual([
      'WORKER_SYNCHRONOUS_COMMIT="maybe": one of off, local, remote_write, on, remote_apply expected',
      'ORG_INGEST_RATE="abc": a number greater than 0 expected',
    ]);
    expect(() => configFrom({ ORG_INGEST_RATE: "abc" }).ORG_INGEST_BURST).toThrow(ConfigError);
    expect(configProblems({})).toEqual([]);
  });

  it("of a secret is not repeated in the message", () => {
    const [line] = configProblems({ DATABASE_URL: "mysql://app:hunter2@db.example.com/inbox" });
    expect(line).toBe('DATABASE_URL="mysql://app:****@db.example.com/inbox": a URL such as postgres://user:password@host:5432/database expected');
  });
});

describe("config()", () => {
  it("sees what is set in process.env while the process runs, and keeps the value while the text is the same", () => {
    process.env.ORG_INGEST_RATE = "7";
    expect(config().ORG_INGEST_RATE).toBe(7);
    process.env.ORG_INGEST_RATE = "8";
    expect(config().ORG_INGEST_RATE).toBe(8);
    delete process.env.ORG_INGEST_RATE;
    expect(config().ORG_INGEST_RATE).toBe(120);
    process.env.TRUSTED_PROXIES = "10.0.0.0/8";
    expect(config().TRUSTED_PROXIES).toBe(config().TRUSTED_PROXIES);
  });
});

describe("npm run inbox -- config", () => {
  it("prints every variable people may set, whether it is the default, and no secret", () => {
    const lines = describeConfig({
      AUTH_SECRET: "hunter2", METRICS_TOKEN: "scrape-me", ORG_INGEST_RATE: "5",
      DATABASE_URL: "postgres://app:hunter2@db.example.com:5432/inbox?sslmode=require",
      SMTP_URL: "smtp://mailer:hunter2@smtp.example.com:587",
    });
    expect(lines).toContain("AUTH_SECRET=****");
    expect(lines).toContain("METRICS_TOKEN=****");
    expect(lines).toContain("INBOX_ENCRYPTION_KEY=****  # default");
    expect(lines).toContain("DATABASE_URL=postgres://app:****@db.example.com:5432/inbox?sslmode=require");
    expect(lines).toContain("SMTP_URL=smtp://mailer:****@smtp.example.com:587");
    expect(lines).toContain("ORG_INGEST_RATE=5");
    expect(lines).toContain("ORG_INGEST_BURST=10  # default");
    expect(lines).toContain("TRUSTED_PROXIES=  # default");
    expect(lines.join("\n")).not.toContain("hunter2");
    expect(lines.join("\n")).not.toContain("scrape-me");
    expect(lines).toHaveLength(Object.values(CONFIG_VARIABLES).filter((variable) => !("internal" in variable && variable.internal)).length);
    expect(lines.some((line) => line.startsWith("INBOX_PEER_ADDRESS_APPENDED="))).toBe(false);
  });

  it("says what an unset variable without a value means", () => {
    const lines = describeConfig({});
    expect(lines).toContain("METRICS_TOKEN=  # default: unset: /api/metrics is off");
    expect(lines).toContain("AUTH_SECRET=  # default: generated once into .data/auth-secret by npm start");
  });
});
