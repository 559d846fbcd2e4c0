// The one wrapper every /api/v1 route goes through: bearer API key → tenant ctx, errors → HTTP.
// Right after the key, the key's role (lib/access/roles.ts): reading needs "read", anything else
// "change" unless the route names another permission; a refusal is 403 `forbidden` before the body is
// read or any id or field is checked (only a body declared over 1 MiB is refused earlier, with 413,
// before the key is even looked up).
// It also holds the rules every route shares (API.md "Tenancy"): bodies over 1 MiB get 413, and a
// control character in a path parameter, a query parameter or a JSON field gets 400; a path id not in
// our id format gets 404 before any query; the database out of reach gets 503 (error-response.ts).
import { requirePermission, type Permission } from "@/lib/access/roles";
import { authenticateApiKey } from "@/lib/api-keys/authenticate-api-key";
import { createCtx, type Ctx } from "@/lib/context";
import { clientAddress } from "./client-address";
import { NotFoundError, UnauthorizedError } from "@/lib/errors";
import { isId, type IdPrefix } from "@/lib/ids";
import { assertStorableText } from "@/lib/validation";
import { errorResponse } from "./error-response";
import { parseRestJson, readBoundedText, refuseDeclaredOversize } from "./rest-body";

type Params = Record<string, string>;
interface ApiRequest<P extends Params> {
  ctx: Ctx;
  /** Its body has been read already: use json(). */
  request: Request;
  params: P;
  query: URLSearchParams;
  /** The parsed JSON body; 400 when it is not JSON or holds a control character, 413 past 1 MiB. An empty body reads as {}. */
  json: () => Promise<unknown>;
}

/** Which path parameter holds whose id: one not in our id format is 404 before any query (e.g. `{ id: "dlv" }`). */
type IdParams<P extends Params> = { [K in keyof P]?: { prefix: IdPrefix; what: string } };

export interface ApiRouteOptions {
  /** What the key's role must allow; default "read" for GET and HEAD, "change" for anything else. */
  permission?: Permission;
}

/** The permission a route needs unless it names one: reading is "read", every other method a change. */
export function defaultPermission(method: string): Permission {
  return method === "GET" || method === "HEAD" ? "read" : "change";
}

export function apiRoute<P extends Params = Params>(handler: (req: ApiRequest<P>) => Promise<Response>, ids: IdParams<P> = {}, options: ApiRouteOptions = {}) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      await refuseDeclaredOversize(request); // no query for a body declared too big, not even the key's
      const key = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      const principal = key ? await authenticateApiKey(key) : null;
      if (!principal) throw new UnauthorizedError();
      const ctx = createCtx(principal.organizationId, { type: "api_key", apiKeyId: principal.apiKeyId, role: principal.role, onBehalfOfUserId: principal.createdByUserId }, undefined, clientAddress(request.headers));
      requirePermission(ctx, options.permission ?? defaultPermission(request.method));
      const params = (await context.params) ?? ({} as P);
      const query = new URL(request.url).searchParams;
      for (const [name, value] of Object.entries(params)) assertStorableText(value, `The path parameter ${name}`);
      for (const [name, value] of query) {
        assertStorableText(name, "A query parameter's name");
        assertStorableText(value, `The query parameter ${name}`);
      }
      // Read (bounded) before the handler even when it ignores the body, so every route answers 413 alike.
      const text = request.method === "GET" || request.method === "HEAD" ? "" : await readBoundedText(request);
      for (const [name, id] of Object.entries(ids) as [string, { prefix: IdPrefix; what: string }][]) {
        if (!isId(id.prefix, params[name] ?? "")) throw new NotFoundError(id.what);
      }
      const json = async () => {
        const body = parseRestJson(text);
        assertStorableText(body, "body");
        return body;
      };
      return await handler({ ctx, request, params, query, json });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
