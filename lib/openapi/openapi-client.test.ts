import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedFiles } from "@/test/openapi-client/generated-files";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the checked-in OpenAPI document and the typed client's types", () => {
  it("are what `npm run openapi:client` writes from the operations table today", async () => {
    const files = await generatedFiles();
    expect(files.map((file) => file.path).sort()).toEqual(["lib/cli/api-types.generated.ts", "lib/openapi/openapi.json"]);
    for (const { path, content } of files) {
      expect(readFileSync(join(ROOT, path), "utf8"), `${path} is stale: run npm run openapi:client`).toBe(content);
    }
  });

  it("types every operation of the document", async () => {
    const [document, types] = await generatedFiles();
    const operationIds = Object.values(JSON.parse(document!.content).paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(operationIds.length).toBeGreaterThan(25);
    for (const id of operationIds) expect(types!.content).toContain(`${id}: {`);
  });
});
