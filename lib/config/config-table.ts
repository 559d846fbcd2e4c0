// The README's configuration table, made from lib/config/schema.ts: one row per variable people may set,
// by group (named on its first row, so the groups cost the README no lines). `npm run docs:config` writes it between the markers; a test fails when stale.
import { CONFIG_GROUPS, CONFIG_VARIABLES, type Variable } from "./schema";

export const TABLE_START = "<!-- config-table:start -->";
export const TABLE_END = "<!-- config-table:end -->";

const cell = (text: string) => text.replace(/\|/g, "\\|");

function defaultCell(variable: Variable<unknown>): string {
  if (variable.defaultText) return variable.defaultText;
  const value = variable.default;
  return `\`${Array.isArray(value) ? value.join(",") : String(value)}\``;
}

/** The markdown table, without the markers. */
export function configTableMarkdown(): string {
  const variables = Object.entries(CONFIG_VARIABLES as Record<string, Variable<unknown>>).filter(([, variable]) => !variable.internal);
  const rows = Object.entries(CONFIG_GROUPS).flatMap(([group, title]) =>
    variables
      .filter(([, variable]) => variable.group === group)
      .map(([name, variable], index) => `| ${index === 0 ? `**${title}**` : ""} | \`${name}\` | ${cell(defaultCell(variable))} | ${cell(variable.doc)} |`),
  );
  return ["| group | variable | default | meaning |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

/** Where the table sits in `readme`: the text between the markers, or null without both markers. */
function tableBounds(readme: string): { from: number; to: number } | null {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) return null;
  return { from: start + TABLE_START.length, to: end };
}

/** The table README.md holds now (trimmed), or null when it has no markers. */
export function configTableIn(readme: string): string | null {
  const bounds = tableBounds(readme);
  return bounds ? readme.slice(bounds.from, bounds.to).trim() : null;
}

/** `readme` with the current table between its markers; throws when the markers are missing. */
export function withConfigTable(readme: string): string {
  const bounds = tableBounds(readme);
  if (!bounds) throw new Error(`README.md needs the lines ${TABLE_START} and ${TABLE_END} around its configuration table`);
  return `${readme.slice(0, bounds.from)}\n${configTableMarkdown()}\n${readme.slice(bounds.to)}`;
}
