// The request every bench sends: a unique Standard Webhooks request, signed just now. Its body is
// chosen by BENCH_BODY (read once, when this module loads):
//   realistic (the default)  a Stripe-like event of ~1.15 KB whose ids, email, names and amounts change
//                            with every request, so it carries as many distinct words (and trigrams) as a
//                            real webhook does. The product's GIN index on stored bodies
//                            (delivery_payloads_body_by_bucket_words_idx) pays per distinct word: this
//                            is the body that shows that cost.
//   padded                   the body the benches sent before: {type, id, pad: 900 × "x"} (~0.95 KB,
//                            almost no distinct trigrams: it hides the index's cost; for comparing
//                            with older figures).
//   entropy[:KiB]            a JSON body of KiB KiB (default 64), at most 65,000 bytes so it stays in
//                            the trigram index (bodies ≤ 65,536 bytes are indexed), filled with random
//                            lower-case letters-and-digits words: the trigram index's worst case
//                            (~31,700 distinct trigrams at 65,000 B). Ingest takes it: an endpoint's
//                            maxBodyBytes is 1 MiB by default, the body budget's largest body 128 MiB.
// bench/neighbours' flood reads FLOOD_BODY (same syntax) for org A's body instead.
import { randomBytes } from "node:crypto";
import type { Webhook } from "standardwebhooks";

export interface BenchBody {
  /** The spec it was made from, e.g. "entropy:64". */
  spec: string;
  /** What it is and about how big, e.g. "realistic (Stripe-like event, ~1.2 KB)". */
  label: string;
  /** A fresh body for one request. */
  make(id: string, type: string): string;
}

// Random bytes come from a pool refilled 64 KiB at a time: one randomBytes call per many bodies.
let pool = randomBytes(0);
let used = 0;
function random(n: number): Buffer {
  if (used + n > pool.length) {
    pool = randomBytes(Math.max(65_536, n));
    used = 0;
  }
  used += n;
  return pool.subarray(used - n, used);
}

// 256-entry tables from a random byte to a character (the slight bias of % is of no matter here).
const table = (alphabet: string) => Buffer.from(Array.from({ length: 256 }, (_, i) => alphabet.charCodeAt(i % alphabet.length)));
const BASE62 = table("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
/** Lower-case letters and digits (pg_trgm folds case), one byte in ~9 a space: words of ~8 characters. */
const WORDS = Buffer.concat([Buffer.alloc(28, " "), table("0123456789abcdefghijklmnopqrstuvwxyz").subarray(0, 228)]);
function token(characters: Buffer, length: number): string {
  const bytes = random(length);
  const out = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) out[i] = characters[bytes[i]!]!;
  return out.toString("latin1");
}
const base62 = (length: number) => token(BASE62, length);
/** An integer in [min, max]. */
function between(min: number, max: number): number {
  return min + (random(4).readUInt32LE(0) % (max - min + 1));
}
const pick = <T>(list: readonly T[]): T => list[between(0, list.length - 1)]!;

const FIRST = ["alice", "bruno", "chen", "dana", "emeka", "fatima", "gustav", "hana", "ivan", "julia", "kofi", "lena", "mateo", "nadia", "oscar", "priya", "quinn", "rosa", "sven", "tomoko", "uma", "victor", "wen", "yusuf"];
const LAST = ["anders", "baker", "costa", "dubois", "eriksen", "fischer", "garcia", "hughes", "ito", "jensen", "kowalski", "larsen", "moreau", "nakamura", "okafor", "petrov", "rossi", "schmidt", "tanaka", "weber"];
const DOMAINS = ["example.com", "example.org", "example.net", "mail.example.com", "shop.example.co.uk"];
const TIERS = ["Starter", "Growth", "Pro", "Business", "Enterprise", "Team"];
const PRODUCTS = ["analytics", "storage", "seats", "support", "API calls", "bandwidth", "build minutes", "email sends", "backups", "monitoring", "search", "SMS credits"];
const PERIODS = ["month", "year", "quarter"];
const CURRENCIES = ["usd", "eur", "gbp", "cad", "aud"];
const STATUSES = ["paid", "open", "draft", "uncollectible"];
const REASONS = ["subscription_cycle", "subscription_create", "subscription_update", "manual"];

function lineItem(currency: string) {
  const quantity = between(1, 12);
  const unit = between(5, 500) * 100 - 1;
  const period = pick(PERIODS);
  const what = `${pick(TIERS)} ${pick(PRODUCTS)}`;
  return {
    id: `il_1${base62(23)}`, object: "line_item", amount: unit * quantity, currency,
    description: `${quantity} × ${what} (at ${(unit / 100).toFixed(2)} ${currency.toUpperCase()} / ${period})`,
    price: { id: `price_1${base62(23)}`, product: `prod_${base62(14)}`, unit_amount: unit },
    quantity,
  };
}

/** A Stripe-like invoice event, ~1.0–1.2 KB; the request's id and type in it. */
function realistic(id: string, type: string): string {
  const created = Math.floor(Date.now() / 1000) - between(0, 600);
  const currency = pick(CURRENCIES);
  const lines = [lineItem(currency), lineItem(currency)];
  const amount = lines.reduce((sum, line) => sum + line.amount, 0);
  const [first, last] = [pick(FIRST), pick(LAST)];
  return JSON.stringify({
    id, object: "event", api_version: "2024-06-20", created, type, livemode: false,
    request: { id: `req_${base62(14)}`, idempotency_key: random(16).toString("hex") },
    data: {
      object: {
        id: `in_1${base62(23)}`, object: "invoice", customer: `cus_${base62(14)}`,
        customer_email: `${first}.${last}${between(1, 999)}@${pick(DOMAINS)}`,
        customer_name: `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`,
        amount_due: amount, amount_paid: amount, currency, status: pick(STATUSES),
        billing_reason: pick(REASONS), number: `${base62(8).toUpperCase()}-${String(between(1, 9999)).padStart(4, "0")}`,
        lines: { object: "list", data: lines, has_more: false },
        metadata: { order_id: `ord_${between(100_000, 9_999_999)}` },
      },
    },
  });
}

const padded = (id: string, type: string) => JSON.stringify({ type, id, pad: "x".repeat(900) });

/** At most this many bytes for entropy bodies: under 64 KiB, so they stay in the trigram index. */
export const ENTROPY_MAX_BYTES = 65_000;

function entropy(bytes: number) {
  return (id: string, type: string) => {
    const room = Math.max(0, bytes - JSON.stringify({ id, type, object: "blob", data: "" }).length);
    // Only letters, digits and spaces: JSON needs no escaping, so the body is exactly `bytes` long
    // (or its bare envelope when that is longer).
    return JSON.stringify({ id, type, object: "blob", data: token(WORDS, room) });
  };
}

const kb = (bytes: number) => `~${(bytes / 1000).toFixed(1)} KB`;

/** The body a spec names (BENCH_BODY's syntax); `variable` names it in the error when the spec is not understood. */
export function benchBody(spec = "realistic", variable = "BENCH_BODY"): BenchBody {
  const text = spec.trim() || "realistic";
  if (text === "realistic") {
    const sizes = Array.from({ length: 50 }, (_, i) => Buffer.byteLength(realistic(`msg_sample_${i}`, "invoice.paid")));
    return { spec: text, label: `realistic (Stripe-like event, ${kb(sizes.reduce((a, b) => a + b, 0) / sizes.length)})`, make: realistic };
  }
  if (text === "padded") return { spec: text, label: `padded (900 × "x", ${kb(padded("msg_sample_0", "bench.event").length)})`, make: padded };
  const match = /^entropy(?::(\d+(?:\.\d+)?))?$/.exec(text);
  if (match) {
    const kib = Number(match[1] ?? 64);
    if (!(kib > 0)) throw new Error(`${variable}=${spec}: entropy's size must be a positive number of KiB`);
    const bytes = Math.min(Math.round(kib * 1024), ENTROPY_MAX_BYTES);
    return { spec: text, label: `entropy (random words, ${bytes.toLocaleString("en")} B)`, make: entropy(bytes) };
  }
  throw new Error(`${variable}=${spec}: expected realistic, padded or entropy[:KiB] (e.g. entropy:64)`);
}

/** BENCH_BODY's body, what every bench sends unless told otherwise. */
export const BENCH_BODY = benchBody(process.env.BENCH_BODY);

/** What BENCH_BODY (or `body`) is, for a bench's header line, e.g. "realistic (Stripe-like event, ~1.2 KB)". */
export function benchBodyLabel(body: BenchBody = BENCH_BODY): string {
  return body.label;
}

export function signedWebhook(webhook: Webhook, id: string, type = "bench.event", kind: BenchBody = BENCH_BODY): { body: string; headers: Record<string, string> } {
  const body = kind.make(id, type);
  const now = new Date();
  return {
    body,
    headers: {
      "content-type": "application/json", "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": webhook.sign(id, now, body),
    },
  };
}
