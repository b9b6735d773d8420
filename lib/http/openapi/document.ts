/**
 * The OpenAPI 3.1 document of the HTTP API, built from the route table
 * (routing/routes.ts) and each routed procedure's `schema`: never written
 * by hand, so a route cannot be served and missing from it. Paths, methods,
 * tags and named schemas are sorted, so the same server always answers the
 * same text. The WebSocket upgrade, served by the transport in front of the
 * table, is listed beside it.
 */
import type { RouteDef } from '../routing/router.js';
import type { RouteTarget } from '../routing/routes.js';
import type { Registry } from '../procedures/procedure.js';
import { ERROR_BODY_SCHEMA } from '../wire/error-schema.js';
import { SchemaComponents } from './components.js';
import { describeRoute, openApiPath } from './operation.js';

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: Json;
  readonly paths: Record<string, Record<string, Json>>;
  readonly [member: string]: unknown;
}

/** Routes a transport serves before the table: the WebSocket upgrade (transport/ws.ts). */
const TRANSPORT_OPERATIONS: ReadonlyArray<{ method: string; path: string; operation: Json }> = [
  {
    method: 'get',
    path: '/api/ws',
    operation: {
      operationId: 'ws.connect',
      summary: 'Open a WebSocket (protocol.md section 3)',
      description:
        'An upgrade to the WebSocket protocol; the token comes in the Authorization header or as `?token=`. ' +
        'Frames are JSON messages typed by `type` (docs/http-api.md, "Real time").',
      tags: ['ws'],
      security: [{ bearer: [] }, { token: [] }],
      responses: {
        '101': { description: 'Switching to the WebSocket protocol.' },
        '4XX': { $ref: '#/components/responses/Error' },
        '5XX': { $ref: '#/components/responses/Error' },
      },
    },
  },
];

export function buildOpenApiDocument(
  routes: ReadonlyArray<RouteDef<RouteTarget>>,
  registry: Registry,
  version: string,
): OpenApiDocument {
  const components = new SchemaComponents();
  const operations = routes.map((route) => ({
    method: route.method.toLowerCase(),
    path: openApiPath(route.path),
    operation: describeRoute(route, registry.get(route.target.procedure), components),
  }));
  const byPath = new Map<string, Record<string, Json>>();
  for (const { method, path, operation } of [...operations, ...TRANSPORT_OPERATIONS]) {
    const methods = byPath.get(path) ?? {};
    if (methods[method]) throw new Error(`two routes serve ${method.toUpperCase()} ${path}`);
    methods[method] = operation;
    byPath.set(path, methods);
  }
  const paths: Record<string, Record<string, Json>> = {};
  for (const path of [...byPath.keys()].sort()) paths[path] = sortedMembers(byPath.get(path)!);
  const errorBody = components.refer(ERROR_BODY_SCHEMA);
  const tags = [...new Set([...operations, ...TRANSPORT_OPERATIONS].map((o) => (o.operation.tags as string[])[0]!))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'EddyDB',
      version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'The HTTP API of EddyDB, an in-memory document database wire-compatible with the ekoDB clients. ' +
        'Bodies are JSON, or MessagePack with Content-Type / Accept application/msgpack.',
    },
    // Relative: the server that answered this document serves the paths.
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: tags.sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: components.schemas(),
      responses: {
        Error: {
          description: 'A failure: the error body (docs/http-api.md, "Conventions").',
          headers: {
            'X-Request-Id': { $ref: '#/components/headers/RequestId' },
            'Retry-After': {
              description: 'On 429 and 503: seconds to wait before retrying.',
              schema: { type: 'integer' },
            },
          },
          content: { 'application/json': { schema: errorBody } },
        },
      },
      headers: {
        RequestId: { description: 'The id of this request, as the server log names it.', schema: { type: 'string' } },
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A token from POST /api/auth/token ({api_key} -> {token}).',
        },
        token: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description: 'The same token as a query parameter: streams and WebSocket upgrades only.',
        },
      },
    },
  };
}

function sortedMembers<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key]!;
  return out;
}
