// GET /api/v1/openapi.json — the REST API's OpenAPI 3.1 document (lib/openapi/). No key: one sent is not even read.
import { buildOpenApiDocument } from "@/lib/openapi/openapi-document";

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

export function GET(): Response {
  document ??= buildOpenApiDocument();
  return Response.json(document);
}
