// `npm run openapi:client`: writes the OpenAPI document and the typed client's types (./generated-files.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedFiles } from "./generated-files";

const root = join(import.meta.dirname, "..", "..");
for (const { path, content } of await generatedFiles()) {
  writeFileSync(join(root, path), content);
  process.stdout.write(`wrote ${path}\n`);
}
