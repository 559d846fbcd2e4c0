// Where mail goes, from the environment, read at send time (the worker may be restarted with new values).
import nodemailer from "nodemailer";

/** SMTP_URL, e.g. smtp://user:pass@smtp.example.com:587 or smtps://…:465; null means "log it and keep it for the dev mailbox". */
export function smtpUrl(): string | null {
  return process.env.SMTP_URL?.trim() || null;
}

/** MAIL_FROM, e.g. "Webhook Inbox <alerts@example.com>". */
export function mailFrom(): string {
  return process.env.MAIL_FROM?.trim() || "Webhook Inbox <alerts@localhost>";
}

/**
 * One transport per send: alert mail is rare, and a fresh connection never carries a broken one's state.
 * Credentials come only from the URL; without them nodemailer does not AUTH (STACK-NOTES 9).
 */
export function createSmtpTransport(url: string) {
  return nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
}
