/** The TypeScript declarations of an OpenAPI document's paths, operations and schemas. */
export declare function openapiTypes(document: object): Promise<string>;
