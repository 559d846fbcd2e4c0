// Every environment variable the product reads, declared once: its type and bounds, its default, one line
// of doc, whether it is a secret, and its group in the README's table (the kinds: lib/config/kinds.ts).
// lib/config/config.ts reads them; `npm run docs:config` writes the README's table from here.
import { availableParallelism } from "node:os";
import { INT_MAX, addressList, baseUrl, flag, milliseconds, numberAtLeast, oneOf, port, positiveNumber, text, url, variable, wholeNumber, type Variable } from "./kinds";

export { CONFIG_GROUPS, type ConfigGroup, type DefaultInputs, type Kind, type Secrecy, type Variable } from "./kinds";

// ---- the variables ----

const MiB = 1_048_576;
const HALF_THE_CORES = Math.max(1, Math.floor(availableParallelism() / 2));

export const CONFIG_VARIABLES = {
  // Database
  DATABASE_URL: variable<string | undefined>({
    group: "database", type: url(["postgres:", "postgresql:"], "postgres://user:password@host:5432/database"),
    default: undefined, defaultText: "embedded PostgreSQL under `.data/` (`npm start` and the CLI only)", secret: "url-password",
    doc: "PostgreSQL connection string",
  }),
  DATABASE_POOL_SIZE: variable({ group: "database", type: wholeNumber(1, 10_000), default: 10, doc: "connections per process for the dashboard and the REST API" }),
  DATABASE_STATEMENT_TIMEOUT_MS: variable({
    group: "database", type: milliseconds(0), default: 15_000, defaultText: "`15000` (`0` = off)",
    doc: "longest a statement of the dashboard/API pool may run; past it the request gets 503, so a few heavy searches cannot hold every connection",
  }),
  WORKER_STATEMENT_TIMEOUT_MS: variable({
    group: "database", type: milliseconds(0), default: 0, defaultText: "`0` (off)",
    doc: "the same for every pool of the worker process (its purges and roll-ups are bounded batches, but a roll-up after a long outage may run longer)",
  }),
  WORKER_SYNCHRONOUS_COMMIT: variable({
    group: "database", type: oneOf(["off", "local", "remote_write", "on", "remote_apply"]), default: "off",
    doc: "`synchronous_commit` of the worker process's sessions: with `off` a PostgreSQL crash may lose its last ~600 ms of claims and finishes, which the lease and the rescue sweep redo (a destination may get a delivery twice); ingest, API and dashboard always wait for the flush (ARCHITECTURE.md, invariant 13)",
  }),
  HOT_PATH_PLAN_CACHE_MODE: variable({
    group: "database", type: oneOf(["force_generic_plan", "auto", "force_custom_plan"]), default: "force_generic_plan",
    doc: "`plan_cache_mode` of ingest's pool and of the worker's sessions: generic plans cut PostgreSQL's CPU per webhook by ~20 %; `auto` is the way back should a plan go wrong on your data (the dashboard/API and sign-in pools keep `auto`)",
  }),
  DELIVERY_PARTITION_WEEKS_AHEAD: variable({
    group: "database", type: wholeNumber(1, 520), default: 1,
    doc: "weeks of delivery partitions made ahead of this one, on every migrate and hourly by the worker; each empty one is one more partition every dashboard query plans for",
  }),
  VACUUM_OWN_TABLES: variable({
    group: "database", type: oneOf(["auto", "off"]), default: "auto",
    doc: "`auto`: where the server's autovacuum is off for a table, the worker vacuums and analyses our tables past autovacuum's thresholds itself; `off`: never (you vacuum them)",
  }),
  VACUUM_OWN_TABLES_INTERVAL_SECONDS: variable({ group: "database", type: wholeNumber(1, 86_400), default: 15, doc: "how soon a vacuum pass that found tables to look after looks again (otherwise every minute)" }),
  VACUUM_OWN_TABLES_RUN_SECONDS: variable({ group: "database", type: wholeNumber(1, 86_400), default: 30, doc: "how long a vacuum pass may go on starting new tables" }),
  VACUUM_OWN_TABLES_STATEMENT_TIMEOUT_MS: variable({ group: "database", type: milliseconds(1), default: 600_000, doc: "the longest one VACUUM or ANALYZE of a pass may run" }),

  // Web server
  PORT: variable({ group: "web", type: port(), default: 3000, doc: "web server port" }),
  APP_URL: variable<string>({
    group: "web", type: baseUrl(), default: ({ PORT }) => `http://localhost:${PORT}`, defaultText: "`http://localhost:$PORT`",
    doc: "public base URL: ingest URLs and the links in mail",
  }),
  // 65 s: Node's 5 s closed a sender's idle keep-alive connection while the sender may be writing its next
  // request on it, which then failed with ECONNRESET (bench:e2e saw 4–30 of 9,000–12,000); longer than the
  // 60 s idle timeout load balancers commonly use, so the balancer, not us, closes first.
  WEB_KEEP_ALIVE_TIMEOUT_MS: variable({
    group: "web", type: milliseconds(1), default: 65_000,
    doc: "how long the web server keeps a sender's idle connection open; behind a load balancer keep it above the balancer's idle timeout (60 s is common)",
  }),
  TRUSTED_PROXIES: variable<string[]>({
    group: "web", type: addressList(), default: [], defaultText: "empty: no proxy trusted",
    doc: "addresses or CIDRs of the proxies in front of the web server whose `X-Forwarded-For` entries are believed (see \"Security\")",
  }),
  METRICS_TOKEN: variable<string | undefined>({
    group: "web", type: text(), default: undefined, defaultText: "unset: `/api/metrics` is off", secret: "secret",
    doc: "bearer token for Prometheus scraping of `/api/metrics`",
  }),
  ORG_MAX_ENDPOINTS: variable({ group: "web", type: wholeNumber(1), default: 100, doc: "endpoints one organization may have; one more answers 409 `limit_reached`" }),
  ENDPOINT_MAX_DESTINATIONS: variable({ group: "web", type: wholeNumber(1), default: 25, doc: "destinations one endpoint may have, its default one included; one more answers 409 `limit_reached`" }),
  INBOX_PEER_ADDRESS_APPENDED: variable<string | undefined>({
    group: "web", type: text(), default: undefined, internal: true,
    doc: "set to 1 by the web server's peer hook (lib/http/peer-address-hook.cjs): the last X-Forwarded-For entry is the socket peer",
  }),

  // Worker and delivery
  WORKER_CONCURRENCY: variable({ group: "delivery", type: wholeNumber(1), default: 100, doc: "delivery attempts in flight per worker process (each destination still gets at most `DELIVERY_ENDPOINT_CONCURRENCY`)" }),
  WORKER_LOCAL_QUEUE_SIZE: variable({ group: "delivery", type: wholeNumber(1), default: 200, doc: "jobs a worker process fetches and locks ahead in one batch (at least `WORKER_CONCURRENCY`)" }),
  WORKER_SHUTDOWN_TIMEOUT_MS: variable({ group: "delivery", type: milliseconds(1), default: 20_000, doc: "how long SIGTERM waits for in-flight attempts" }),
  WORKER_HEARTBEAT_INTERVAL_MS: variable({ group: "delivery", type: positiveNumber(INT_MAX), default: 5_000, doc: "how often a worker process records its heartbeat" }),
  WORKER_STALE_AFTER_MS: variable({ group: "delivery", type: positiveNumber(INT_MAX), default: 30_000, doc: "a heartbeat older than this means the worker is dead: its jobs are released and `/api/health` says `stale`" }),
  WORKER_RELEASE_INTERVAL_MS: variable({ group: "delivery", type: positiveNumber(INT_MAX), default: 15_000, doc: "how often a worker looks for dead workers' locked jobs" }),
  DELIVERY_ENDPOINT_CONCURRENCY: variable({ group: "delivery", type: wholeNumber(1), default: 10, doc: "attempts in flight per destination (each of an endpoint's destinations has its own), across all workers" }),
  ORG_DELIVERY_CONCURRENCY: variable({
    group: "delivery", type: wholeNumber(1), default: 50,
    doc: "attempts in flight per organization, across all workers, so one organization's slow destinations hold at most this many worker slots; keep it below `WORKER_CONCURRENCY` × workers",
  }),
  PULL_WAITS_PER_ORGANIZATION: variable({
    group: "delivery", type: wholeNumber(1), default: 20,
    doc: "pulls with `waitSeconds` waiting at once per organization, per web process; past it a pull answers at once with what is ready",
  }),
  DELIVERY_LEASE_MARGIN_MS: variable({ group: "delivery", type: milliseconds(1), default: 30_000, doc: "how long past an endpoint's timeout an attempt's claim lasts before another job may take it over" }),
  DELIVERY_ORPHAN_WALK: variable({
    group: "delivery", type: wholeNumber(1), default: 2_000,
    doc: "open deliveries of each endpoint the rescue sweep reads a minute looking for ones whose job was lost, going on from there the next minute",
  }),
  DELIVERY_RETRY_MAX_DELAY_SECONDS: variable({
    group: "delivery", type: wholeNumber(1, 2_147_483), default: 3_600,
    doc: "the longest wait between two automatic attempts (the schedule's \"capped at 1 hour\"); jitter stays under it, a destination's `Retry-After` still wins",
  }),
  DELIVERY_LOG: variable({ group: "delivery", type: oneOf(["all", "problems"]), default: "all", doc: "`problems`: log only failed, parked and interrupted attempts, not every success" }),
  // With the embedded database the product runs on the developer's machine, where a local destination is what they mean.
  INBOX_ALLOW_PRIVATE_DESTINATIONS: variable<boolean>({
    group: "delivery", type: flag(), default: ({ INBOX_EMBEDDED_DATABASE }) => INBOX_EMBEDDED_DATABASE,
    defaultText: "`true` with the embedded database (no `DATABASE_URL`), else `false`",
    doc: "allow destinations on loopback, private, link-local, metadata and every other special-purpose address (self-hosting, local development); see \"Security\"",
  }),
  INBOX_EMBEDDED_DATABASE: variable({
    group: "delivery", type: flag(), default: false, internal: true,
    doc: "set to true by `npm start` and the CLI for their processes when they run the embedded PostgreSQL (no `DATABASE_URL`)",
  }),

  // Ingest
  INGEST_STORE_TIMEOUT_MS: variable({ group: "ingest", type: milliseconds(1), default: 8_000, doc: "longest an ingest request waits for its commit before answering 503" }),
  INGEST_COMMIT_CONCURRENCY: variable({ group: "ingest", type: wholeNumber(1), default: 2, doc: "group-commit batches in flight at once per web process (each holds one connection)" }),
  INGEST_LARGE_BODY_BYTES: variable({ group: "ingest", type: wholeNumber(1), default: 256 * 1024, defaultText: "`262144` (256 KiB)", doc: "bodies over this are stored by a statement of their own, never inside a shared batch" }),
  INGEST_BODY_BUDGET_BYTES: variable({ group: "ingest", type: wholeNumber(1), default: 256 * MiB, defaultText: "`268435456` (256 MiB)", doc: "request-body bytes a web process holds at once, shared fairly between organizations" }),
  // 120: ~9 % of what one web process ingests here (~1,300 req/s). bench:neighbours on a 2-core machine: a
  // neighbour admitted at 200/s multiplied another's p50 5–10× (the CPU it takes is what the other's requests
  // wait for); 120/s still lets a tenant send 100/s steadily.
  ORG_INGEST_RATE: variable({
    group: "ingest", type: positiveNumber(), default: 120,
    doc: "ingest requests per second one organization may send, per web process (a token bucket); over it: 429 with `Retry-After`, nothing stored",
  }),
  ORG_INGEST_BURST: variable<number>({
    group: "ingest", type: positiveNumber(), default: ({ ORG_INGEST_RATE }) => 2 * ORG_INGEST_RATE, defaultText: "`2 × ORG_INGEST_RATE`",
    doc: "how many requests an organization may send at once after a quiet spell (the bucket's size)",
  }),
  ORG_INGEST_BYTES_PER_REQUEST: variable({
    group: "ingest", type: wholeNumber(1), default: 16 * 1024,
    doc: "a body counts as one request per this many bytes against `ORG_INGEST_RATE` (rounded up), so an organization flooding big bodies slows itself, not the others",
  }),

  // Search
  SEARCH_CONCURRENCY: variable({ group: "search", type: wholeNumber(1), default: 2, doc: "searches (`q`) running at once per organization, per web process; one more waits for a turn" }),
  SEARCH_TOTAL_CONCURRENCY: variable({ group: "search", type: wholeNumber(1), default: 5, doc: "searches running at once in all, per web process (each holds a dashboard/API connection: keep it below `DATABASE_POOL_SIZE`)" }),
  SEARCH_QUEUE: variable({ group: "search", type: wholeNumber(1), default: 4, doc: "searches of one organization that may wait for a turn; one more is answered 429 `too_many_searches`" }),
  INBOX_SEARCH_WINDOW: variable({
    group: "search", type: wholeNumber(1), default: 10_000,
    doc: "how many of the newest deliveries a search checks one by one, at most, before using the indexes (a tenth first)",
  }),
  INDEX_BODIES_ROWS_PER_TURN: variable({ group: "search", type: wholeNumber(1), default: 200, doc: "the most bodies one organization's turn of the body indexer puts in the search index" }),
  INDEX_BODIES_BYTES_PER_TURN: variable({ group: "search", type: wholeNumber(1), default: 262_144, doc: "the most bytes of body one organization's turn of the body indexer puts in the search index" }),
  INDEX_BODIES_RUN_MS: variable({ group: "search", type: milliseconds(1), default: 2_000, doc: "how long a pass of the body indexer may go on starting new turns" }),
  INDEX_BODIES_BUSY_SHARE: variable({
    group: "search", type: positiveNumber(1), default: 0.25,
    doc: "the share of its time the body indexer may spend in turns (it rests after each), so a flood of big bodies cannot take the database's CPU from ingest and deliveries",
  }),

  // Quarantine
  QUARANTINE_MAX_REQUESTS: variable({ group: "quarantine", type: wholeNumber(1), default: 1_000, doc: "per endpoint, the quarantine keeps at most the newest this many refused requests" }),
  QUARANTINE_MAX_BYTES: variable({ group: "quarantine", type: wholeNumber(1), default: 10 * MiB, defaultText: "`10485760` (10 MiB)", doc: "per endpoint, the quarantine keeps at most this many sealed bytes" }),
  QUARANTINE_DAYS: variable({ group: "quarantine", type: wholeNumber(1, 36_500), default: 7, doc: "days a quarantined request is kept (the organization's `retentionDays` when shorter)" }),
  QUARANTINE_SOURCE_RATE: variable({ group: "quarantine", type: positiveNumber(), default: 1, doc: "refused requests kept per second per source address per endpoint, per web process; past it they are only counted" }),
  QUARANTINE_SOURCE_BURST: variable({ group: "quarantine", type: positiveNumber(), default: 20, doc: "the same source's burst after a quiet spell" }),
  QUARANTINE_ENDPOINT_RATE: variable({ group: "quarantine", type: positiveNumber(), default: 10, doc: "refused requests kept per second per endpoint, whatever their addresses (a flood from many)" }),
  QUARANTINE_ENDPOINT_BURST: variable({ group: "quarantine", type: positiveNumber(), default: 100, doc: "the same endpoint's burst after a quiet spell" }),
  QUARANTINE_ENDPOINT_BYTE_RATE: variable({ group: "quarantine", type: positiveNumber(), default: 262_144, defaultText: "`262144` (256 KiB)", doc: "body bytes kept per second per endpoint, after a burst of `QUARANTINE_MAX_BYTES`" }),
  QUARANTINE_WRITE_CONCURRENCY: variable({
    group: "quarantine", type: wholeNumber(1), default: 2,
    doc: "quarantine writes in flight per organization per web process (each holds a dashboard/API connection); past it a refused request is only counted",
  }),
  QUARANTINE_TOTAL_WRITE_CONCURRENCY: variable({ group: "quarantine", type: wholeNumber(1), default: 8, doc: "all organizations' quarantine writes in flight at once per web process" }),

  // Retention and purges
  RETENTION_BATCH_SIZE: variable({ group: "retention", type: wholeNumber(1), default: 1_000, doc: "rows one statement of the retention sweep deletes at most (one organization, one kind, its own transaction)" }),
  RETENTION_RUN_SECONDS: variable({ group: "retention", type: positiveNumber(2_147_483), default: 45, doc: "how long one run of the retention sweep (every minute) may go on; it stops between two batches and the next run goes on" }),
  RETENTION_ROWS_PER_RUN: variable({ group: "retention", type: wholeNumber(1), default: 200_000, doc: "rows one run of the retention sweep deletes at most, over every organization" }),
  RETENTION_PAUSE_FACTOR: variable({
    group: "retention", type: numberAtLeast(0), default: 2,
    doc: "after each batch the sweep rests this many times as long as the batch took (at least 200 ms after a full batch); `0`: no rest",
  }),
  // 500: each batch's commit writes its WAL in one burst that other tenants' commits wait behind: at 1,000 a
  // batch, their ingest p99 during a 200,000-delivery purge was 85–109 ms on a slow day
  // (delete-endpoint-purge.int.test.ts); at 500, 68 ms.
  ENDPOINT_PURGE_BATCH_SIZE: variable({ group: "retention", type: wholeNumber(1), default: 500, doc: "deliveries a deleted endpoint's (or organization's) background purge removes per transaction" }),

  // Sign-in, sign-up and secrets
  AUTH_SECRET: variable<string | undefined>({
    group: "auth", type: text(), default: undefined, defaultText: "generated once into `.data/auth-secret` by `npm start`", secret: "secret",
    doc: "signs sessions; also the key (via HKDF) that encrypts endpoint secrets at rest: keep it stable",
  }),
  INBOX_ENCRYPTION_KEY: variable<string | undefined>({
    group: "auth", type: text(), default: ({ AUTH_SECRET }) => AUTH_SECRET, defaultText: "`AUTH_SECRET`", secret: "secret",
    doc: "a dedicated key for endpoint secrets and quarantined requests at rest instead; changing it makes what was stored unreadable",
  }),
  AUTH_SIGNIN_ACCOUNT_LIMIT: variable({ group: "auth", type: wholeNumber(1), default: 10, doc: "failed sign-ins per 15 minutes per account (email) before sign-in is refused without checking the password" }),
  AUTH_SIGNIN_ADDRESS_LIMIT: variable({ group: "auth", type: wholeNumber(1), default: 30, doc: "failed sign-ins per 15 minutes per source address before sign-in is refused without checking the password" }),
  AUTH_SIGNUP_ADDRESS_LIMIT: variable({ group: "auth", type: wholeNumber(1), default: 5, doc: "sign-ups per hour per source address" }),
  AUTH_SIGNIN_RATE: variable({ group: "auth", type: wholeNumber(1), default: 5, doc: "sign-in attempts per second one web process hands to Auth.js (a token bucket); past it, or while password hashing is full, \"busy\" at once" }),
  AUTH_SIGNIN_BURST: variable<number>({
    group: "auth", type: wholeNumber(1), default: ({ AUTH_SIGNIN_RATE }) => 2 * AUTH_SIGNIN_RATE, defaultText: "`2 × AUTH_SIGNIN_RATE`",
    doc: "sign-in attempts one web process takes at once after a quiet spell (the bucket's size)",
  }),
  PASSWORD_HASH_CONCURRENCY: variable({
    group: "auth", type: wholeNumber(1), default: HALF_THE_CORES, defaultText: "half the cores (at least 1)",
    doc: "scrypt hashes running at once per web process",
  }),
  PASSWORD_HASH_QUEUE: variable({ group: "auth", type: wholeNumber(1), default: 8, doc: "password hashes that may wait per web process; past that a sign-in is told at once that the server is busy" }),
  PASSWORD_HASH_COST: variable({
    group: "auth", type: wholeNumber(12, 17), default: 15,
    doc: "scrypt's cost for new password hashes, as log₂ N (memory 1 KiB × 2^cost); a stored hash keeps its own. The test suite runs at 12",
  }),
  PASSWORD_HASH_NICE: variable({ group: "auth", type: wholeNumber(0, 19), default: 10, doc: "scheduling priority of the threads that hash passwords, so a login storm yields the cores to ingest" }),
  AUTH_DATABASE_POOL_SIZE: variable({ group: "auth", type: wholeNumber(1, 10_000), default: 3, doc: "connections per web process for sign-in, sign-up and the throttle, apart from the dashboard's and ingest's" }),

  // Mail
  SMTP_URL: variable<string | undefined>({
    group: "mail", type: url(["smtp:", "smtps:"], "smtp://user:pass@host:587 or smtps://…:465"), default: undefined, secret: "url-password",
    defaultText: "unset: mail is logged and kept on the Mailbox page; invitations and alert-address confirmations then reach nobody",
    doc: "where mail goes: `smtp://user:pass@host:587` or `smtps://…:465`",
  }),
  MAIL_FROM: variable({ group: "mail", type: text(), default: "Webhook Inbox <alerts@localhost>", doc: "sender of the mail (alerts, invitations, confirmations)" }),
  PAGERDUTY_EVENTS_URL: variable({
    group: "mail", type: url(["http:", "https:"], "https://events.pagerduty.com/v2/enqueue"), default: "https://events.pagerduty.com/v2/enqueue",
    doc: "PagerDuty Events API v2 URL that pagerduty alert channels post to (a local server for tests and air-gapped installs)",
  }),
  INVITATION_MAIL_ADDRESS_LIMIT: variable({ group: "mail", type: wholeNumber(1), default: 3, doc: "invitation mails one organization may send one address in 24 hours (withdrawn invitations count)" }),
  INVITATION_MAIL_ORGANIZATION_LIMIT: variable({ group: "mail", type: wholeNumber(1), default: 50, doc: "invitation mails one organization may send in 24 hours" }),

  // Logs, development and tests
  LOG_LEVEL: variable({
    group: "development", type: oneOf(["trace", "debug", "info", "warn", "error", "fatal", "silent"]), default: "info",
    doc: "the least severe log lines written",
  }),
  LOG_FORMAT: variable({
    group: "development", type: oneOf(["auto", "json"]), default: "auto",
    doc: "`auto`: readable lines on a terminal, JSON lines otherwise; `json`: JSON lines on a terminal too",
  }),
  INBOX_DATA_DIR: variable({ group: "development", type: text(), default: ".data", doc: "where `npm start` keeps the embedded database and the generated secret" }),
  EMBEDDED_PG_PORT: variable({ group: "development", type: port(), default: 54_329, doc: "port of the embedded PostgreSQL" }),
  INBOX_BENCH: variable({ group: "development", type: flag(), default: false, doc: "`true`: `POST /api/noop` answers (the benchmarks' baseline: a route that does nothing)" }),
} satisfies Record<string, Variable<unknown>>;

export type ConfigName = keyof typeof CONFIG_VARIABLES;
