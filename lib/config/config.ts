// The one place the product reads its environment (lib/config/schema.ts declares every variable).
// `config().NAME` reads process.env at that moment, so a test or an operator's tool that sets a variable
// at run time is seen; each variable keeps its last raw text and value, so a read costs one environment
// lookup and a comparison, and text is parsed again only when it changed. Every process checks the
// whole environment as it starts (stopOnInvalidConfig): a bad value stops it there, naming the variable.
import { CONFIG_VARIABLES, type ConfigName, type DefaultInputs, type Variable } from "./schema";

type ValueOf<V> = V extends Variable<infer T> ? T : never;

/** The typed configuration: one read-only property per variable. */
export type Config = { readonly [Name in ConfigName]: ValueOf<(typeof CONFIG_VARIABLES)[Name]> };

/** An environment: process.env, or the one a child process is given. */
export type Environment = Readonly<Record<string, string | undefined>>;

const NAMES = Object.keys(CONFIG_VARIABLES) as ConfigName[];
const declared = (name: ConfigName) => CONFIG_VARIABLES[name] as Variable<unknown>;

/** One or more variables whose values are not what they accept. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? `Bad configuration: ${problems[0]}` : `Bad configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

/** The raw text a variable's value is taken from: trimmed, except a secret's (its every byte is the key). */
function givenText(variable: Variable<unknown>, raw: string | undefined): string | undefined {
  const given = variable.secret === "secret" ? raw : raw?.trim();
  return given ? given : undefined;
}

/** `ORG_INGEST_RATE="abc": a number greater than 0 expected`, a secret's value masked. */
function problem(name: ConfigName, raw: string): string {
  const variable = declared(name);
  const shown = variable.secret ? maskValue(variable, raw) : raw;
  return `${name}=${JSON.stringify(shown)}: ${variable.type.accepts} expected`;
}

/** A value fit to print: a secret as ****, a URL with its password (and any password parameter) replaced. */
function maskValue(variable: Pick<Variable<unknown>, "secret">, value: string): string {
  if (!variable.secret) return value;
  if (variable.secret === "secret" || !URL.canParse(value)) return "****";
  const url = new URL(value);
  if (url.password) url.password = "****";
  if (url.searchParams.has("password")) url.searchParams.set("password", "****");
  return url.toString();
}

function reader(environment: Environment): Config {
  const values = {} as Record<ConfigName, unknown>;
  for (const name of NAMES) {
    const variable = declared(name);
    let last: { raw: string | undefined; value: unknown } | undefined;
    Object.defineProperty(values, name, {
      enumerable: true,
      get() {
        const raw = environment[name];
        if (last !== undefined && last.raw === raw) return last.value;
        const given = givenText(variable, raw);
        if (given === undefined) {
          // A derived default follows the variable it comes from: computed at each read, never kept.
          if (typeof variable.default === "function") return (variable.default as (inputs: DefaultInputs) => unknown)(values as unknown as DefaultInputs);
          last = { raw, value: variable.default };
          return last.value;
        }
        const parsed = variable.type.schema.safeParse(given);
        if (!parsed.success) throw new ConfigError([problem(name, raw!)]);
        last = { raw, value: parsed.data };
        return last.value;
      },
    });
  }
  return Object.freeze(values) as unknown as Config;
}

let processConfig: Config | undefined;

/** This process's configuration, read from process.env as each value is asked for. */
export function config(): Config {
  return (processConfig ??= reader(process.env));
}

/** The configuration another environment holds (a child process's, or a test's). */
export function configFrom(environment: Environment): Config {
  return reader(environment);
}

/** Every problem with an environment's variables, one line each; empty when all is well. */
export function configProblems(environment: Environment = process.env): string[] {
  const values = reader(environment);
  const problems = NAMES.flatMap((name) => {
    try {
      void values[name];
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  });
  // A default derived from a bad value fails with that value's problem: say it once.
  return [...new Set(problems)];
}

/**
 * For a process as it starts: with a bad value anywhere, says which variables and what they accept on
 * standard error, and exits 1 before anything else runs.
 */
export function stopOnInvalidConfig(label: string, environment: Environment = process.env): void {
  const problems = configProblems(environment);
  if (!problems.length) return;
  process.stderr.write(`[${label}] cannot start: bad configuration (see the README, "Configuration")\n${problems.map((line) => `  ${line}\n`).join("")}`);
  process.exit(1);
}

/** One line per variable people may set, as `npm run inbox -- config` prints it: NAME=value, and whether it is the default. */
export function describeConfig(environment: Environment = process.env): string[] {
  const values = reader(environment);
  return NAMES.filter((name) => !declared(name).internal).map((name) => {
    const variable = declared(name);
    const value = values[name];
    const isDefault = givenText(variable, environment[name]) === undefined;
    const shown = value === undefined ? "" : maskValue(variable, Array.isArray(value) ? value.join(",") : String(value));
    const note = !isDefault ? "" : value === undefined && variable.defaultText ? `  # default: ${variable.defaultText.replace(/`/g, "")}` : "  # default";
    return `${name}=${shown}${note}`;
  });
}
