// The frame of every bench run: a fresh migrated database, a destination answering 200, the
// product's processes when the bench starts them, and all of it stopped and removed at the end,
// whatever happened. A failure is printed and the exit code set.
import { createBenchDatabase, type BenchDatabase } from "./database";
import { startDestination, type BenchDestination } from "./destination";
import { startProduct, type Product } from "./product";

export interface BenchStage {
  database: BenchDatabase;
  destination: BenchDestination;
  /** Starts the web server and the worker (stopped at the end). */
  startProduct(options?: Omit<Parameters<typeof startProduct>[0], "databaseUrl">): Promise<Product>;
}

/** BENCH_PORT=n: the bench listens on n (the web server), n + 1 (the destination), n + 2 (anything else); else on free ports. */
export const benchPort = (offset: number): number | undefined => (process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) + offset : undefined);

export function runBench(databasePrefix: string, bench: (stage: BenchStage) => Promise<void>): void {
  const run = async () => {
    const database = await createBenchDatabase(databasePrefix);
    const products: Product[] = [];
    let destination: BenchDestination | undefined;
    try {
      destination = await startDestination(benchPort(1));
      await bench({
        database,
        destination,
        startProduct: async (productOptions) => {
          const product = await startProduct({ port: benchPort(0), ...productOptions, databaseUrl: database.url });
          products.push(product);
          return product;
        },
      });
    } finally {
      for (const product of products) await product.stop();
      await destination?.close();
      await database.drop();
    }
  };
  run().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
