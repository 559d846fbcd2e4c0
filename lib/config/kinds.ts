// The kinds of value an environment variable may hold (a zod schema over its raw text, and the words
// saying what it accepts), and the shape of a declared variable. lib/config/schema.ts declares each
// variable with these.
import { isIP } from "node:net";
import { z } from "zod";

/** The README table's sections, in order. */
export const CONFIG_GROUPS = {
  database: "Database",
  web: "Web server",
  delivery: "Worker and delivery",
  ingest: "Ingest",
  search: "Search",
  quarantine: "Quarantine",
  retention: "Retention and purges",
  auth: "Sign-in, sign-up and secrets",
  mail: "Mail",
  development: "Logs, development and tests",
} as const;
export type ConfigGroup = keyof typeof CONFIG_GROUPS;

/** How `npm run inbox -- config` shows a value: `secret` as ****, `url-password` with the URL's password replaced. */
export type Secrecy = "secret" | "url-password";

/** A type: its zod schema over the raw text, and what it accepts, in words, for the error message. */
export interface Kind<T> {
  schema: z.ZodType<T>;
  accepts: string;
}

/** The values other variables' defaults are derived from. */
export interface DefaultInputs {
  readonly PORT: number;
  readonly ORG_INGEST_RATE: number;
  readonly AUTH_SIGNIN_RATE: number;
  readonly AUTH_SECRET: string | undefined;
  readonly INBOX_EMBEDDED_DATABASE: boolean;
}

export interface Variable<T> {
  group: ConfigGroup;
  /** One line: what it does, for the README and the code. */
  doc: string;
  type: Kind<NonNullable<T>>;
  /** Used when the variable is unset or empty: a value, or one derived from other variables. */
  default: NoInfer<T> | ((inputs: DefaultInputs) => NoInfer<T>);
  /** The default as the README says it, when the value alone would not (derived, or unset). */
  defaultText?: string;
  secret?: Secrecy;
  /** Set by the product itself for its own processes, never by people: left out of the README and `inbox config`. */
  internal?: boolean;
}


export const INT_MAX = 2_147_483_647; // the longest timer Node keeps (ms), and PostgreSQL's longest statement_timeout
const range = (what: string, min: number, max: number) =>
  max === Number.MAX_SAFE_INTEGER ? `${what} of at least ${min}` : `${what} from ${min} to ${max}`;

export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): Kind<number> {
  return { schema: z.coerce.number().int().min(min).max(max), accepts: range("a whole number", min, max) };
}

/** Milliseconds handed to a timer or to statement_timeout: at most INT_MAX. */
export const milliseconds = (min: number) => wholeNumber(min, INT_MAX);
export const port = () => wholeNumber(1, 65_535);

export function positiveNumber(max?: number): Kind<number> {
  const schema = z.coerce.number().gt(0);
  return max === undefined
    ? { schema, accepts: "a number greater than 0" }
    : { schema: schema.max(max), accepts: `a number greater than 0 and at most ${max}` };
}

export function numberAtLeast(min: number): Kind<number> {
  return { schema: z.coerce.number().min(min), accepts: `a number of at least ${min}` };
}

/** One of a few words, case aside. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T): Kind<T[number]> {
  return {
    schema: z.string().transform((raw) => raw.toLowerCase()).pipe(z.enum(values)),
    accepts: `one of ${values.join(", ")}`,
  };
}

/** `true` or `false` only: a `1` or `yes` was silently false before, so it is refused rather than guessed. */
export const flag = (): Kind<boolean> => ({
  schema: z.string().transform((raw) => raw.toLowerCase()).pipe(z.enum(["true", "false"])).transform((word) => word === "true"),
  accepts: "true or false",
});

export const text = (): Kind<string> => ({ schema: z.string(), accepts: "text" });

export function url(protocols: string[], example: string): Kind<string> {
  return {
    schema: z.string().refine((raw) => URL.canParse(raw) && protocols.includes(new URL(raw).protocol), "not such a URL"),
    accepts: `a URL such as ${example}`,
  };
}

/** A public base URL, kept without trailing slashes (links are built as `${APP_URL}/path`). */
export const baseUrl = (): Kind<string> => ({
  schema: url(["http:", "https:"], "https://inbox.example.com").schema.transform((raw) => raw.replace(/\/+$/, "")),
  accepts: "an http:// or https:// URL such as https://inbox.example.com",
});

/** An IP address or CIDR block (IPv4 or IPv6; brackets and a zone allowed). */
function isAddressOrCidr(entry: string): boolean {
  const [address = "", prefix, extra] = entry.split("/");
  const family = isIP(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  if (!family || extra !== undefined) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** Comma-separated addresses or CIDR blocks; each entry trimmed, empty entries dropped. */
export const addressList = (): Kind<string[]> => ({
  schema: z
    .string()
    .transform((raw) => raw.split(",").map((entry) => entry.trim()).filter(Boolean))
    .refine((entries) => entries.every(isAddressOrCidr), "an entry is not an address or CIDR"),
  accepts: "comma-separated IP addresses or CIDR blocks such as 10.0.0.0/8, ::1",
});

export const variable = <T>(declared: Variable<T>): Variable<T> => declared;
