// The mail the product sent during the run, as its recipients got it: e2e/serve.ts runs a real SMTP server and
// writes each mail received there to MAILS_FILE, a JSON line each.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "@playwright/test";
import type { ReceivedMail } from "@/test/smtp-server";

export const MAILS_FILE = path.resolve("e2e/artifacts/e2e-mails.jsonl");

/** The mails `email` has received so far, oldest first. */
export function mailsTo(email: string): ReceivedMail[] {
  if (!existsSync(MAILS_FILE)) return [];
  return readFileSync(MAILS_FILE, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ReceivedMail)
    .filter((mail) => mail.to.includes(email));
}

/** The invitation link in the newest of `count` mails to `email`, once they have arrived (the worker sends them). */
export async function invitationLinkMailedTo(email: string, count = 1): Promise<string> {
  await expect.poll(() => mailsTo(email).length, { message: `mails to ${email}`, timeout: 15_000 }).toBe(count);
  const body = mailsTo(email).at(-1)!.text;
  const link = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]{43}/.exec(body)?.[0];
  expect(link, body).toBeDefined();
  return link!;
}
