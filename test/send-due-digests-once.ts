// One worker's digest check as its own process (lib/digest/send-due-digests.int.test.ts runs two at once):
// `node --import tsx test/send-due-digests-once.ts <now ISO>` on DATABASE_URL; prints {sent, failed}.
import { closeDb } from "@/db";
import { sendDueDigests } from "@/lib/digest/send-due-digests";

const result = await sendDueDigests({ input: { now: new Date(process.argv[2]!) } });
await closeDb();
process.stdout.write(`${JSON.stringify(result)}\n`);
