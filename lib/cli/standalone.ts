// The standalone `inbox` (npm run build:cli → dist/inbox.mjs): the commands that need only the REST API, in one
// file that runs with Node alone, for users without a checkout: `node inbox.mjs listen …`.
import { LISTEN_USAGE, listenMain } from "./listen-command";

const USAGE = `Usage:\n${LISTEN_USAGE.replaceAll("  inbox listen", "  node inbox.mjs listen")}\n  node inbox.mjs --help\n      This text.`;
const [command, ...args] = process.argv.slice(2);
if (command === "listen") listenMain(args);
else {
  process.stdout.write(`${USAGE}\n`);
  process.exit(command === undefined || ["--help", "-h", "help"].includes(command) ? 0 : 1);
}
