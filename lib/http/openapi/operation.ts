/**
 * One route of the table as an OpenAPI operation: its path and query
 * parameters, request body, success answer (JSON or MessagePack; a stream's
 * is server-sent events), the error answers and who may call it, all read
 * from the route line and its procedure's `schema`.
 */
import type { RouteDef } from '../routing/router.js';
import type { RouteTarget } from '../routing/routes.js';
import type { JsonSchema, Procedure, ProcedureSchema } from '../procedures/procedure.js';
import type { SchemaComponents } from './components.js';

type Json = Record<string, unknown>;

/** The body encodings every route reads and answers with (wire/codec.ts); errors are JSON only. */
const BODY_TYPES = ['application/json', 'application/msgpack'] as const;

const REQUEST_ID = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
const ERRORS = { '4XX': { $ref: '#/components/responses/Error' }, '5XX': { $ref: '#/components/responses/Error' } };

/** What a procedure without a declared schema is documented as: any answer (the specs list such procedures). */
const UNDESCRIBED: ProcedureSchema = { summary: 'Not described', response: {} };

/**
 * `/api/find/{collection}/{id}` for `/api/find/:collection/:id`. A rest parameter `:path+` is `{path...}`, as
 * protocol.md writes it: OpenAPI has no parameter spanning segments, and a name may hold any character but braces.
 */
export function openApiPath(pattern: string): string {
  return pattern
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `{${parameterName(segment)}}` : segment))
    .join('/');
}

/** `collection` for `:collection`, `path...` for the rest parameter `:path+`. */
function parameterName(segment: string): string {
  return segment.endsWith('+') ? `${segment.slice(1, -1)}...` : segment.slice(1);
}

export function describeRoute(
  route: RouteDef<RouteTarget>,
  procedure: Procedure | undefined,
  components: SchemaComponents,
): Json {
  const schema = procedure?.schema ?? UNDESCRIBED;
  const streaming = procedure?.kind === 'stream';
  const operation: Json = {
    operationId: route.target.procedure,
    summary: schema.summary,
    description: describeAccess(procedure, schema),
    tags: [route.target.procedure.split('.')[0]!],
  };
  if (procedure?.access === 'public' && !streaming) operation.security = [];
  else if (streaming) operation.security = [{ bearer: [] }, { token: [] }];
  const parameters = [...pathParameters(route.path, schema), ...queryParameters(schema, streaming, components)];
  if (parameters.length > 0) operation.parameters = parameters;
  if (schema.body) operation.requestBody = requestBody(components.refer(schema.body));
  operation.responses = { ...successes(route, schema, streaming, components), ...ERRORS };
  return operation;
}

function describeAccess(procedure: Procedure | undefined, schema: ProcedureSchema): string {
  const who =
    procedure?.access === 'admin'
      ? 'Needs a token of an admin key.'
      : procedure?.access === 'user'
        ? 'Needs a token.'
        : procedure?.optionalCaller
          ? 'Needs no token; an admin token shows more.'
          : 'Needs no token.';
  return schema.description ? `${schema.description}\n\n${who}` : who;
}

function pathParameters(pattern: string, schema: ProcedureSchema): Json[] {
  return pattern
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => {
      const name = parameterName(segment);
      const parameter: Json = { name, in: 'path', required: true, schema: schema.params?.[name] ?? { type: 'string' } };
      if (segment.endsWith('+')) parameter.description = 'The rest of the path: one or more segments, joined by `/`.';
      return parameter;
    });
}

function queryParameters(schema: ProcedureSchema, streaming: boolean, components: SchemaComponents): Json[] {
  const query: Record<string, JsonSchema> = { ...schema.query };
  // EventSource sends no headers: a stream also takes its token in the query string.
  if (streaming) query.token = { type: 'string', description: 'The bearer token, for clients that cannot send one.' };
  return Object.keys(query)
    .sort()
    .map((name) => ({ name, in: 'query', required: false, schema: components.refer(query[name]!) }));
}

function requestBody(schema: Json): Json {
  return { required: bodyRequired(schema), content: media(schema) };
}

/** An empty body is read as `{}`: a body is optional when `{}` may be sent. */
function bodyRequired(schema: Json): boolean {
  const required = schema.required;
  return !(schema.type === 'object' && !(Array.isArray(required) && required.length > 0));
}

function media(schema: Json): Json {
  return Object.fromEntries(BODY_TYPES.map((type) => [type, { schema }]));
}

function successes(
  route: RouteDef<RouteTarget>,
  schema: ProcedureSchema,
  streaming: boolean,
  components: SchemaComponents,
): Json {
  const status = String(route.target.status ?? 200);
  const response = components.refer(schema.response);
  if (streaming) {
    const events = {
      schema: { type: 'string', description: 'Server-sent events; each `data:` line is one JSON event.' },
      'x-event-data': response,
    };
    return {
      [status]: {
        description: 'The stream: events until the client leaves; a failure once open is an `error` event.',
        headers: REQUEST_ID,
        content: { 'text/event-stream': events },
      },
    };
  }
  const content = schema.media ? { [schema.media]: { schema: response } } : media(response);
  const out: Json = { [status]: { description: 'Success.', headers: REQUEST_ID, content } };
  for (const [other, body] of Object.entries(schema.statuses ?? {})) {
    const described = (body as Json).description;
    const description = typeof described === 'string' ? described : 'Another outcome: see the operation.';
    out[other] = { description, headers: REQUEST_ID, content: media(components.refer(body)) };
  }
  return out;
}
