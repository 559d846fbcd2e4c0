// bench/e2e's load generator, in a process of its own so that neither its CPU nor its event loop is
// the bench's (the destination lives there): BENCH_LOAD (JSON OpenLoopOptions) says what to send.
// It prints "ready", starts on a line on stdin, and prints its result as one JSON line, with the CPU
// seconds it used while sending.
import { openLoop, type OpenLoopOptions } from "@/bench/support/open-loop";

const options = JSON.parse(process.env.BENCH_LOAD!) as OpenLoopOptions;
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
const before = process.cpuUsage();
const result = await openLoop(options);
const used = process.cpuUsage(before);
// Exit once the line is out: a pipe takes a big write in several turns.
process.stdout.write(`${JSON.stringify({ ...result, cpuSeconds: (used.user + used.system) / 1e6 })}\n`, () => process.exit(0));
