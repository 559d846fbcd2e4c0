// A shell command (bash/sh) that POSTs exactly these bytes with exactly these headers. Pure.
//
// Byte-exactness: the body goes in with --data-binary, single-quoted, when it is short, valid
// UTF-8 text without control characters that a copy-paste could mangle (CR, NUL…) and does not
// start with "@" (which curl reads as a file name). Anything else is piped in as base64
// (`printf … | base64 -d | curl --data-binary @-`), which also avoids the kernel's 128 KiB limit
// on one argument. curl's own default headers (User-Agent, Accept, Content-Type, Expect) are
// removed unless the delivery has them, so the destination sees what the worker sends.

const INLINE_LIMIT_BYTES = 64 * 1024;
const CURL_DEFAULTS = ["user-agent", "accept", "content-type", "expect"];

/** 'text' for POSIX shells: everything literal, a single quote written as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function inlineable(body: Buffer): boolean {
  if (body.length > INLINE_LIMIT_BYTES || body[0] === 0x40 /* @ */) return false;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return false;
  }
  // Tab and LF survive a copy-paste; other control characters (CR above all) may not.
  return !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text);
}

export function curlCommand(input: { url: string; headers: Record<string, string>; body: Buffer }): string {
  const names = new Set(Object.keys(input.headers).map((name) => name.toLowerCase()));
  const lines: string[] = [];
  for (const [name, value] of Object.entries(input.headers)) {
    // `-H 'name;'` is curl's way to send a header with an empty value.
    lines.push(`-H ${shellQuote(value === "" ? `${name};` : `${name}: ${value}`)}`);
  }
  for (const name of CURL_DEFAULTS) if (!names.has(name)) lines.push(`-H ${shellQuote(`${name}:`)}`);
  const inline = inlineable(input.body);
  lines.push(inline ? `--data-binary ${shellQuote(input.body.toString("utf8"))}` : "--data-binary @-");
  const curl = `curl -sS ${shellQuote(input.url)} \\\n  ${lines.join(" \\\n  ")}`;
  return inline ? curl : `printf '%s' ${shellQuote(input.body.toString("base64"))} | base64 -d | ${curl}`;
}
