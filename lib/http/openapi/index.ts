/** The OpenAPI document of the HTTP API, generated from the route table and the procedures' schemas. */
export { buildOpenApiDocument, type OpenApiDocument } from './document.js';
export { openApiPath } from './operation.js';
export { openApiProcedure } from './procedure.js';
