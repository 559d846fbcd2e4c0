// `inbox listen …`: the command line around lib/cli/listen.ts, shared by `npm run inbox` and the standalone file
// (`npm run build:cli`). Ctrl-C once stops cleanly (the delivery in hand finished, the destination paused or
// deleted); twice, at once.
import { parseArgs } from "node:util";
import { listen, ListenError } from "./listen";
import { listenApi } from "./listen-api";

export const LISTEN_USAGE = `  inbox listen --url APP_URL --key API_KEY --endpoint ENDPOINT_ID --forward http://localhost:PORT/path [--filter JSON] [--keep]
      Forwards the endpoint's webhooks to a local URL through a pull destination named listen-<hostname>
      (made, or reused), byte for byte with their headers: a 2xx is acknowledged, anything else retried.
      One line per delivery. Ctrl-C pauses the destination (--keep) or deletes it.`;

export async function runListen(args: string[], print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: "string" }, key: { type: "string" }, endpoint: { type: "string" }, forward: { type: "string" },
      filter: { type: "string" }, keep: { type: "boolean" }, "lease-seconds": { type: "string" }, max: { type: "string" },
    },
    strict: true,
  });
  const { url, key } = values;
  const missing = [!url && "--url", !key && "--key", !values.endpoint && "--endpoint", !values.forward && "--forward"].filter(Boolean);
  if (missing.length) throw new UsageError(`Missing ${missing.join(", ")}.`);
  let filter: unknown;
  try {
    filter = values.filter === undefined ? undefined : JSON.parse(values.filter);
  } catch {
    throw new UsageError("--filter is not JSON.");
  }
  if (!/^https?:\/\//.test(values.forward!)) throw new UsageError("--forward must be an http:// or https:// URL.");
  const stop = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    print("Stopping (Ctrl-C again to quit at once)…");
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await listen(listenApi({ url: url!, key: key! }), {
      endpointId: values.endpoint!, forward: values.forward!, filter, keep: values.keep ?? false, print,
      leaseSeconds: values["lease-seconds"] === undefined ? undefined : Number(values["lease-seconds"]),
      max: values.max === undefined ? undefined : Number(values.max),
    }, stop.signal);
    return 0;
  } catch (error) {
    if (error instanceof ListenError) {
      print(`The server refused: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

export class UsageError extends Error {}

/** Runs `listen` as the process: exits 0 when stopped, 1 when refused or misused (with the usage). */
export function listenMain(args: string[]): void {
  runListen(args)
    .then((code) => process.exit(code))
    .catch((error: unknown) => {
      const usage = error instanceof UsageError || (error as { code?: string })?.code?.startsWith?.("ERR_PARSE_ARGS");
      process.stderr.write(`${usage ? `${(error as Error).message}\n${LISTEN_USAGE}` : String((error as Error)?.stack ?? error)}\n`);
      process.exit(1);
    });
}
