// The REST API's OpenAPI 3.1 document (GET /api/v1/openapi.json), written from the operations table with zod's own
// JSON Schema output: request bodies and query parameters as the routes' schemas take them (io "input": a field with
// a default is optional), answers as ./response-schemas.ts says the presenters write them.
import { z } from "zod";
import { COMMON_ERRORS, ERROR_DESCRIPTIONS, type Named, type Operation } from "./operation";
import { OPERATIONS } from "./operations";
import { ErrorBody } from "./response-schemas";

type JsonSchema = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Each named schema once under its name, converted as a whole so a schema named elsewhere is a $ref to it. */
function componentSchemas(schemas: Named[], io: "input" | "output"): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  const seen = new Map<string, z.ZodType>();
  for (const { name, schema } of schemas) {
    if (seen.has(name) && seen.get(name) !== schema) throw new Error(`Two schemas are named ${name}.`);
    if (!seen.has(name)) registry.add(schema, { id: name });
    seen.set(name, schema);
  }
  const { schemas: converted } = z.toJSONSchema(registry, { io, target: "draft-2020-12", uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(converted).map(([name, { $schema: _schema, $id: _id, ...schema }]) => [name, schema as JsonSchema]));
}

function components(...groups: Record<string, JsonSchema>[]): Record<string, JsonSchema> {
  const all: Record<string, JsonSchema> = {};
  for (const [name, schema] of groups.flatMap((group) => Object.entries(group))) {
    if (name in all) throw new Error(`A request and an answer schema are both named ${name}.`);
    all[name] = schema;
  }
  return all;
}

function parameters(operation: Operation) {
  const inPath = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const path = inPath.map((name) => {
    const description = operation.params?.[name];
    if (!description) throw new Error(`${operation.operationId}: the path parameter ${name} is not described.`);
    return { name, in: "path", required: true, description, schema: { type: "string" } };
  });
  const query = operation.query ? z.toJSONSchema(operation.query, { io: "input", target: "draft-2020-12" }) : null;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  const queryParameters = Object.entries((query?.properties ?? {}) as Record<string, JsonSchema>).map(([name, { description, ...schema }]) => ({
    name, in: "query", required: required.has(name), ...(description ? { description } : {}), schema,
  }));
  return [...path, ...queryParameters];
}

const json = (schema: JsonSchema) => ({ "application/json": { schema } });

function responses(operation: Operation) {
  const answers: Record<string, unknown> = {};
  for (const [status, { description, body }] of Object.entries(operation.responses)) {
    answers[status] = body ? { description, content: json(ref(body.name)) } : { description };
  }
  const errors = [...(operation.public ? [500] : COMMON_ERRORS), ...(operation.errors ?? [])].sort((a, b) => a - b);
  for (const status of errors) answers[String(status)] = { description: ERROR_DESCRIPTIONS[status] ?? "Error", content: json(ref("Error")) };
  return answers;
}

function operationObject(operation: Operation) {
  const parameterList = parameters(operation);
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: [operation.tag],
    ...(operation.public ? { security: [] } : {}),
    ...(parameterList.length ? { parameters: parameterList } : {}),
    // An empty body reads as {} (lib/http/rest-body.ts): a body may be left out wherever {} would do.
    ...(operation.body ? { requestBody: { required: !operation.body.schema.safeParse({}).success, content: json(ref(operation.body.name)) } } : {}),
    responses: responses(operation),
  };
}

/** The document; `serverUrl`: where /api/v1 is (relative by default, so it holds wherever the app is served). */
export function buildOpenApiDocument(serverUrl = "/api/v1") {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) (paths[operation.path] ??= {})[operation.method] = operationObject(operation);
  const bodies = OPERATIONS.flatMap((operation) => (operation.body ? [operation.body] : []));
  const answers = OPERATIONS.flatMap((operation) => Object.values(operation.responses).flatMap((response) => (response.body ? [response.body] : [])));
  return {
    openapi: "3.1.0",
    info: {
      title: "Webhook Inbox REST API",
      version: "1",
      description: "Receive, keep and deliver webhooks. Every route but this document's takes `Authorization: Bearer <api key>`; errors are `{error: {code, message}}`; lists are `{data, nextCursor}`.",
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An API key of the organization (`npm run inbox -- apikey:create`)" } },
      schemas: components(componentSchemas(bodies, "input"), componentSchemas([...answers, { name: "Error", schema: ErrorBody }], "output")),
    },
  };
}
export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
