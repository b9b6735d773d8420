/**
 * `GET /api/openapi.json`: the document, for anyone (a client generator or
 * a gateway reads it before it has a key). Built on the first request from
 * the server's own registry and kept: the route table and the procedures
 * do not change while a server runs.
 */
import Type from 'typebox';
import { defineProcedure, type Procedure, type Registry } from '../procedures/procedure.js';
import { ROUTES } from '../routing/routes.js';
import { buildOpenApiDocument, type OpenApiDocument } from './document.js';

/** The procedure for a registry that is built with it (hence a function: the registry does not exist yet). */
export function openApiProcedure(registry: () => Registry): Procedure<undefined, OpenApiDocument> {
  let document: OpenApiDocument | undefined;
  return defineProcedure({
    name: 'openapi.get',
    kind: 'query',
    access: 'public',
    input: () => undefined,
    handler: (_i, ctx) => (document ??= buildOpenApiDocument(ROUTES, registry(), ctx.version)),
    schema: {
      summary: 'This document: the HTTP API as OpenAPI 3.1',
      response: Type.Object(
        { openapi: Type.String(), info: Type.Object({}), paths: Type.Object({}), components: Type.Object({}) },
        { description: 'An OpenAPI 3.1 document.' },
      ),
    },
  });
}
