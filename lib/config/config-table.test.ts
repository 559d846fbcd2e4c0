import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configTableIn, configTableMarkdown, TABLE_END, TABLE_START, withConfigTable } from "./config-table";
import { CONFIG_VARIABLES } from "./schema";

const README = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");

describe("the README's configuration table", () => {
  it("is the one lib/config/schema.ts makes (run `npm run docs:config` after changing a variable)", () => {
    expect(configTableIn(README), `README.md needs ${TABLE_START} … ${TABLE_END} around its configuration table`).not.toBeNull();
    expect(configTableIn(README)).toBe(configTableMarkdown());
  });

  it("has a row for every variable people may set, and none for the product's own", () => {
    const table = configTableMarkdown();
    for (const [name, variable] of Object.entries(CONFIG_VARIABLES)) {
      expect(table.includes(` \`${name}\` |`), name).toBe(!("internal" in variable && variable.internal));
    }
  });

  it("is written between the markers, leaving the rest of the file as it was", () => {
    const written = withConfigTable(`# Title\n\n${TABLE_START}\nold table\n${TABLE_END}\n\nAfter.\n`);
    expect(written).toBe(`# Title\n\n${TABLE_START}\n${configTableMarkdown()}\n${TABLE_END}\n\nAfter.\n`);
    expect(configTableIn(written)).toBe(configTableMarkdown());
    expect(() => withConfigTable("# No markers\n")).toThrow(TABLE_START);
  });
});
