// Runs the worker's concurrent calls of one statement as one statement over many rows. A call that
// finds nothing in flight runs at once (alone, at idle: no added latency); calls made while a batch
// is in flight wait for it and go together in the next. Each statement a delivery needs costs
// the database and postgres.js a fixed overhead well above its per-row work, so this is what lets
// one worker process drain a backlog faster than one statement per delivery allows.
export interface MicroBatcherOptions {
  maxBatch: number;
  /** Batches in flight at once (each holds one pooled connection). */
  maxConcurrent: number;
}

interface Waiting<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

export class MicroBatcher<I, O> {
  private queue: Waiting<I, O>[] = [];
  private inFlight = 0;

  /** `run` answers one output per input, in order. */
  constructor(
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly options: MicroBatcherOptions,
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.maxConcurrent) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight++;
      void this.settle(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async settle(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const outputs = await this.run(batch.map((waiting) => waiting.input));
      batch.forEach((waiting, i) => waiting.resolve(outputs[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One bad row (or a deadlock) must not fail its batch-mates: each goes again on its own.
      await Promise.all(batch.map((waiting) => this.run([waiting.input]).then(([output]) => waiting.resolve(output!), waiting.reject)));
    }
  }
}

const shared = new WeakMap<object, Map<string, MicroBatcher<unknown, unknown>>>();

/** One batcher per owner (a connection pool) and key (the settings its statements use), made on first use. */
export function sharedBatcher<I, O>(owner: object, key: string, create: () => MicroBatcher<I, O>): MicroBatcher<I, O> {
  let byKey = shared.get(owner);
  if (!byKey) shared.set(owner, (byKey = new Map()));
  let batcher = byKey.get(key) as MicroBatcher<I, O> | undefined;
  if (!batcher) {
    batcher = create();
    byKey.set(key, batcher as MicroBatcher<unknown, unknown>);
  }
  return batcher;
}
