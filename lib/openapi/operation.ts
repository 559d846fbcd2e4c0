// One row of the REST API's operations table (./operations.ts), from which openapi-document.ts writes the document.
import { z } from "zod";
import { MAX_PAGE_SIZE } from "@/lib/pagination";

export type HttpMethod = "get" | "post" | "patch" | "delete";

/** A schema under its name in the document's components (`#/components/schemas/<name>`). */
export interface Named {
  name: string;
  schema: z.ZodType;
}
export const named = (name: string, schema: z.ZodType): Named => ({ name, schema });

export interface Operation {
  method: HttpMethod;
  /** Under /api/v1, with `{name}` for each path parameter (Next.js's `[name]`). */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Path parameters' meaning, by name; every `{name}` of the path needs one. */
  params?: Record<string, string>;
  query?: z.ZodObject;
  /** The JSON body, as the route validates it (read with io "input": defaults make a field optional). */
  body?: Named;
  /** Success answers by status; no schema: no body (204). */
  responses: Record<number, { description: string; body?: Named }>;
  /** Error answers' statuses besides those every keyed route may give (COMMON_ERRORS), all `{error: {code, message}}`. */
  errors?: number[];
  /** Served without a key (a key sent is ignored). */
  public?: boolean;
}

/** What any route behind a key may answer (lib/http/api-route.ts, lib/http/error-response.ts). */
export const COMMON_ERRORS = [400, 401, 403, 413, 500, 503] as const;

export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid input (validation_error, invalid_filter, …), naming the field",
  401: "No API key, or not a valid one",
  403: "The key's role may not do this (forbidden)",
  404: "Not found, or another organization's",
  409: "Conflict with the present state",
  413: "Body over 1 MiB",
  429: "Too many requests (rate_limited); see Retry-After",
  500: "Unexpected error; nothing was changed",
  503: "The database is out of reach; see Retry-After",
};

/** `limit` (1–200, default 50) and `cursor`, as every paged list takes them (lib/pagination.ts). */
export const PageQuery = z.object({
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional().describe(`Page size, 1–${MAX_PAGE_SIZE}, default 50`),
  cursor: z.string().optional().describe("The nextCursor of the previous page"),
});

/** `?dryRun=true` (lib/http/dry-run.ts): count only, change nothing. */
export const DryRunQuery = z.object({ dryRun: z.boolean().optional().describe("true: only count, change nothing") });
