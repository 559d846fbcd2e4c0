// For tests: a real SMTP server (smtp-server) on 127.0.0.1, port 0, no STARTTLS/AUTH (STACK-NOTES 9),
// that keeps what it receives and can refuse the first messages with a temporary error.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
}

function decodeQuotedPrintable(value: string): string {
  const bytes = value.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`);
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, "%25"));
}

function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function decodePart(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = parseHeaders(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const encoding = headers["content-transfer-encoding"]?.toLowerCase();
  if (encoding === "quoted-printable") return { headers, body: decodeQuotedPrintable(body) };
  if (encoding === "base64") return { headers, body: Buffer.from(body, "base64").toString("utf8") };
  return { headers, body };
}

/** Enough MIME for what nodemailer sends us: a text/plain + text/html multipart/alternative. */
export function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const top = decodePart(raw);
  const boundary = /boundary="?([^";]+)"?/i.exec(top.headers["content-type"] ?? "")?.[1];
  const parts = boundary ? raw.split(`--${boundary}`).slice(1, -1).map((part) => decodePart(part.replace(/^\r?\n/, ""))) : [top];
  const find = (type: string) => parts.find((part) => part.headers["content-type"]?.startsWith(type))?.body ?? "";
  return { ...envelope, headers: top.headers, subject: top.headers.subject ?? "", text: find("text/plain"), html: find("text/html") };
}

/** `onMail`: called with each mail received, e.g. to hand it to another process (e2e/serve.ts). */
export async function startTestSmtpServer(options: { refuseFirst?: number; onMail?: (mail: ReceivedMail) => void } = {}) {
  const received: ReceivedMail[] = [];
  let refusals = options.refuseFirst ?? 0;
  let refused = 0;
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (refusals > 0) {
          refusals--;
          refused++;
          return callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
        }
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        };
        const mail = parseMail(Buffer.concat(chunks).toString("utf8"), envelope);
        received.push(mail);
        options.onMail?.(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refused: () => refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type TestSmtpServer = Awaited<ReturnType<typeof startTestSmtpServer>>;
