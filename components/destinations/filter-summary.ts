// A destination's filter in one line for its list: what it matches, not the editor.
const SHOWN = 160;

/** "Every request" for no filter (null or {}), else the filter as compact JSON, cut to SHOWN characters. */
export function filterSummary(filter: unknown): string {
  if (filter === null || filter === undefined) return "Every request";
  if (typeof filter === "object" && !Array.isArray(filter) && Object.keys(filter).length === 0) return "Every request";
  const text = JSON.stringify(filter);
  return text.length > SHOWN ? `${text.slice(0, SHOWN - 1)}…` : text;
}

/** The filter as the editor shows it: indented JSON, empty for none. */
export function filterText(filter: unknown): string {
  return filter === null || filter === undefined ? "" : JSON.stringify(filter, null, 2);
}
