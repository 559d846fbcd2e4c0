// openapi-typescript resolved from here, with its own TypeScript 5 (see package.json).
import openapiTS, { astToString } from "openapi-typescript";

/** The TypeScript declarations of an OpenAPI document's paths, operations and schemas. */
export async function openapiTypes(document) {
  // defaultNonNullable off: a request field with a default may be left out (the API fills it in).
  return astToString(await openapiTS(document, { defaultNonNullable: false }));
}
