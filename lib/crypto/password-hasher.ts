// scrypt off the libuv thread pool, in worker threads at a low CPU priority. On Linux a thread's nice
// value is its own (os.setPriority in a worker lowers that thread only), so when the cores are
// contended a hash yields to the web server's main thread and to PostgreSQL instead of taking a core
// from them: a sign-in storm slows sign-ins, not ingest. Where workers cannot start, crypto.scrypt.
import { scrypt as scryptCallback, type ScryptOptions } from "node:crypto";
import { Worker } from "node:worker_threads";
import { config } from "@/lib/config/config";

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { scryptSync } = require("node:crypto");
try { require("node:os").setPriority(workerData.nice); } catch {}
parentPort.on("message", ({ password, salt, keylen, options }) => {
  try { parentPort.postMessage({ key: scryptSync(password, Buffer.from(salt), keylen, options) }); }
  catch (error) { parentPort.postMessage({ error: String((error && error.message) || error) }); }
});`;

interface HashWorker {
  worker: Worker;
  exited: boolean;
}

const idle: HashWorker[] = [];
let workersUnavailable = false;

/** PASSWORD_HASH_NICE: the hashing threads' nice value, 0–19 (default 10: ~1/10 of a core another thread wants). */
const niceValue = () => config().PASSWORD_HASH_NICE;

function newWorker(): HashWorker {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { nice: niceValue() } });
  worker.unref();
  const entry: HashWorker = { worker, exited: false };
  worker.on("error", () => void worker.terminate());
  worker.on("exit", () => (entry.exited = true));
  return entry;
}

function fallback(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** scrypt in a low-priority worker thread. Callers bound the concurrency (password-slots.ts). */
export async function scryptInBackground(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  if (workersUnavailable) return fallback(password, salt, keylen, options);
  let entry: HashWorker;
  try {
    entry = idle.pop() ?? newWorker();
  } catch {
    workersUnavailable = true;
    return fallback(password, salt, keylen, options);
  }
  const { worker } = entry;
  worker.ref(); // a CLI awaiting a hash must not exit under it
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const onMessage = (message: { key?: Uint8Array; error?: string }) => {
        worker.off("exit", onExit);
        if (message.key) resolve(Buffer.from(message.key.buffer, message.key.byteOffset, message.key.byteLength));
        else reject(new Error(message.error ?? "scrypt failed"));
      };
      const onExit = () => {
        worker.off("message", onMessage);
        reject(new Error("the password hashing thread exited"));
      };
      worker.once("message", onMessage);
      worker.once("exit", onExit);
      worker.postMessage({ password, salt, keylen, options });
    });
  } finally {
    worker.unref();
    if (!entry.exited) idle.push(entry);
  }
}
