// Builds the Next.js app once, before the fault files start their `npm start`s side by side.
import { ensureNextBuild } from "@/lib/runtime/next-build";

export default async function setup() {
  await ensureNextBuild("faults");
}
