// Where mail goes (SMTP_URL, MAIL_FROM in lib/config/schema.ts), read at send time.
import nodemailer from "nodemailer";
import { config } from "@/lib/config/config";

/** SMTP_URL, e.g. smtp://user:pass@smtp.example.com:587 or smtps://…:465; null means "log it and keep it for the dev mailbox". */
export function smtpUrl(): string | null {
  return config().SMTP_URL ?? null;
}

/** MAIL_FROM, e.g. "Webhook Inbox <alerts@example.com>". */
export function mailFrom(): string {
  return config().MAIL_FROM;
}

/**
 * One transport per send: alert mail is rare, and a fresh connection never carries a broken one's state.
 * Credentials come only from the URL; without them nodemailer does not AUTH (STACK-NOTES 9).
 */
export function createSmtpTransport(url: string) {
  return nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
}
