// docs/api-reference.md, written from the OpenAPI document (`npm run docs:api`): every route with its parameters,
// body and answers, then every object with its fields. The document is the routes' own schemas, so the reference
// cannot drift from what the API takes and answers (lib/openapi/api-reference.test.ts fails when it is stale).
import { buildOpenApiDocument } from "./openapi-document";

type Schema = Record<string, unknown>;
type Document = ReturnType<typeof buildOpenApiDocument>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);
const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** A schema in a few words: `string (1–200)`, `integer ≥ 1`, `"a" | "b"`, `[Destination]`, `Endpoint | null`. */
export function typeOf(schema: Schema | undefined): string {
  if (!schema) return "any";
  if (typeof schema.$ref === "string") return refName(schema.$ref);
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (variants) return variants.map(typeOf).join(" \\| ");
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" \\| ");
  if ("const" in schema) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(" \\| ") : (schema.type as string | undefined);
  if (type === "array") return `[${typeOf(schema.items as Schema | undefined)}]`;
  if (type === "object" && !schema.properties) return "object";
  const bounds = [
    schema.minimum !== undefined || schema.maximum !== undefined ? `${schema.minimum ?? "…"}–${schema.maximum ?? "…"}` : "",
    schema.minLength !== undefined || schema.maxLength !== undefined ? `${schema.minLength ?? 0}–${schema.maxLength ?? "…"} chars` : "",
    typeof schema.format === "string" ? schema.format : "",
  ].filter(Boolean);
  return `${type ?? "any"}${bounds.length ? ` (${bounds.join(", ")})` : ""}`;
}

function fieldsTable(schema: Schema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  if (Object.keys(properties).length === 0) return [`${typeOf(schema)}`, ""];
  return [
    "| field | type | required | default | about |",
    "| --- | --- | --- | --- | --- |",
    ...Object.entries(properties).map(([name, field]) =>
      `| \`${name}\` | ${cell(typeOf(field))} | ${required.has(name) ? "yes" : ""} | ${field.default === undefined ? "" : cell(`\`${JSON.stringify(field.default)}\``)} | ${cell(String(field.description ?? ""))} |`),
    "",
  ];
}

function bodyOf(content: unknown): string {
  const schema = (content as { "application/json"?: { schema?: Schema } } | undefined)?.["application/json"]?.schema;
  return schema ? typeOf(schema) : "none";
}

/** The whole reference, as markdown. */
export function apiReferenceMarkdown(document: Document = buildOpenApiDocument()): string {
  const lines = [
    "# REST API reference",
    "",
    "Generated from the OpenAPI document (`GET /api/v1/openapi.json`, `lib/openapi/`) by `npm run docs:api`; do not edit.",
    "Base `/api/v1`, JSON in and out, `Authorization: Bearer <api key>`. Errors are `{error: {code, message}}`.",
    "",
    "## Routes",
    "",
  ];
  const paths = document.paths as Record<string, Record<string, Schema>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      lines.push(`### \`${method.toUpperCase()} ${path}\``, "", String(operation.summary ?? ""), "");
      const parameters = (operation.parameters ?? []) as { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
      if (parameters.length) {
        lines.push("| parameter | in | type | about |", "| --- | --- | --- | --- |");
        for (const p of parameters) lines.push(`| \`${p.name}\`${p.required ? "" : " (optional)"} | ${p.in} | ${cell(typeOf(p.schema))} | ${cell(p.description ?? "")} |`);
        lines.push("");
      }
      const requestBody = operation.requestBody as { content?: unknown } | undefined;
      if (requestBody) lines.push(`Body: ${bodyOf(requestBody.content)}`, "");
      const responses = (operation.responses ?? {}) as Record<string, { description?: string; content?: unknown }>;
      lines.push("| status | answer | when |", "| --- | --- | --- |");
      for (const [status, response] of Object.entries(responses)) lines.push(`| ${status} | ${cell(bodyOf(response.content))} | ${cell(response.description ?? "")} |`);
      lines.push("");
    }
  }
  lines.push("## Objects", "");
  const schemas = ((document.components ?? {}) as { schemas?: Record<string, Schema> }).schemas ?? {};
  for (const [name, schema] of Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`### ${name}`, "");
    if (schema.description) lines.push(String(schema.description), "");
    lines.push(...fieldsTable(schema));
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
