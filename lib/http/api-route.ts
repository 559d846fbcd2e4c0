// The one wrapper every /api/v1 route goes through: bearer API key → tenant ctx, errors → HTTP.
import { authenticateApiKey } from "@/lib/api-keys/authenticate-api-key";
import { createCtx, type Ctx } from "@/lib/context";
import { UnauthorizedError, ValidationError } from "@/lib/errors";
import { errorResponse } from "./error-response";

type Params = Record<string, string>;
interface ApiRequest<P extends Params> {
  ctx: Ctx;
  request: Request;
  params: P;
  query: URLSearchParams;
  /** The parsed JSON body; 400 when it is not JSON. An empty body reads as {}. */
  json: () => Promise<unknown>;
}

export function apiRoute<P extends Params = Params>(handler: (req: ApiRequest<P>) => Promise<Response>) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const key = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      const principal = key ? await authenticateApiKey(key) : null;
      if (!principal) throw new UnauthorizedError();
      const ctx = createCtx(principal.organizationId, { type: "api_key", apiKeyId: principal.apiKeyId });
      const params = (await context.params) ?? ({} as P);
      return await handler({ ctx, request, params, query: new URL(request.url).searchParams, json: () => readJson(request) });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError("The request body is not valid JSON.");
  }
}
