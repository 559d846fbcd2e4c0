// Reading /api/metrics' answer in tests: a strict parser of the Prometheus text format and a series' value.
import { expect } from "vitest";

interface ParsedSample { name: string; labels: Record<string, string>; value: number }
export interface Exposition { types: Map<string, string>; helps: Map<string, string>; samples: ParsedSample[] }

/** A strict reader of the text format: every line is a comment we know, or `name{labels} value`. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  const samples: ParsedSample[] = [];
  expect(text.endsWith("\n")).toBe(true);
  for (const line of text.trimEnd().split("\n")) {
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (comment) {
      (comment[1] === "HELP" ? helps : types).set(comment[2]!, comment[3]!);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(sample, `unreadable line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const [, name, value] of sample![2]?.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g) ?? []) labels[name!] = value!;
    const raw = sample![3]!;
    samples.push({ name: sample![1]!, labels, value: raw === "+Inf" ? Infinity : Number(raw) });
  }
  return { types, helps, samples };
}

/** The value of one series; throws when it is missing. */
export function value(exposition: Exposition, name: string, labels: Record<string, string>): number {
  const found = exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
  return found[0]!.value;
}

