// `npm run docs:api`: writes docs/api-reference.md from the OpenAPI document (lib/openapi/api-reference.ts).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { apiReferenceMarkdown } from "./api-reference";

export const API_REFERENCE_FILE = path.resolve("docs/api-reference.md");

writeFileSync(API_REFERENCE_FILE, apiReferenceMarkdown());
process.stdout.write("wrote docs/api-reference.md\n");
