// The server Playwright tests run against: a fresh database on DATABASE_URL's server (or the
// embedded one), then `npm start`'s own supervisor with it. SIGTERM stops the product and drops the database.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { withDatabase } from "@/lib/runtime/database-url";
import type { EmbeddedServer } from "@/lib/runtime/embedded-postgres";
import { startTestSmtpServer } from "@/test/smtp-server";
import { MAILS_FILE } from "./mail-helpers";

const DATABASE_URL_FILE = path.resolve("e2e/artifacts/e2e-database-url");


async function main() {
  let embedded: EmbeddedServer | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const { startEmbeddedPostgres } = await import("@/lib/runtime/embedded-postgres");
    embedded = await startEmbeddedPostgres(path.resolve(".data/test-pg"), Number(process.env.TEST_PG_PORT ?? 54330));
    adminUrl = embedded.adminUrl;
  }
  const database = `inbox_e2e_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${database}"`);
  // Which database this run uses, for a spec that must hold a lock in it (e2e/dashboard-helpers.ts).
  mkdirSync(path.dirname(DATABASE_URL_FILE), { recursive: true });
  writeFileSync(DATABASE_URL_FILE, withDatabase(adminUrl, database));

  // A real SMTP server on loopback: mail with a secret link (an invitation) reaches only its recipient, never a
  // page, so the specs read it where a recipient would, in the mail received.
  writeFileSync(MAILS_FILE, "");
  const smtp = await startTestSmtpServer({ onMail: (mail) => appendFileSync(MAILS_FILE, `${JSON.stringify(mail)}\n`) });

  const child = spawn(process.execPath, ["--import", "tsx", "lib/runtime/start.ts"], {
    env: { ...process.env, DATABASE_URL: withDatabase(adminUrl, database), AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"), SMTP_URL: smtp.url },
    stdio: "inherit",
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    child.kill("SIGTERM");
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  const code = await new Promise<number>((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
  await admin.unsafe(`drop database if exists "${database}" with (force)`).catch(() => {});
  rmSync(DATABASE_URL_FILE, { force: true });
  await smtp.close();
  await admin.end();
  await embedded?.stop();
  process.exit(stopping ? 0 : code);
}

void main();
