/**
 * Stored functions (protocol.md 2.11, product.md "Stored functions"):
 * definitions (saving, replacing and deleting are admin-only; reading needs a
 * token), calls by id or label, and path-routed calls under /api/route/...
 *
 * A call needs a valid token only; its steps run with instance-wide rights
 * (definer model), so no collection scope is checked here. The answer is
 * `{records, stats}` with records typed or bare per `use_typed_values`, or a
 * Return step's fields with its `status_code` as the HTTP status.
 */
import { isPlainObject, isTypedWrapper } from '../../engine/index.js';
import { definitionToWire, redactDefinition, type CallResult, type StoredFunction } from '../../functions/index.js';
import { defineProcedure, WithStatus, type RawInput } from './procedure.js';
import { param, queryList } from './input.js';
import type { Context } from './context.js';
import { Type } from './shapes.js';
import { RecordsAnswer } from '../wire/wire-record.js';

const FunctionDefinition = Type.Object(
  {
    label: Type.String({ maxLength: 256, description: 'Unique; calls and reads may name the function by it.' }),
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    version: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    parameters: Type.Optional(Type.Object({}, { description: 'By name: {required?, default?, ...}.' })),
    functions: Type.Array(Type.Object({ type: Type.String() }), { description: 'The steps (docs/functions.md).' }),
    tags: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
    http_method: Type.Optional(Type.String({ description: 'With http_path: served under /api/route/.' })),
    http_path: Type.Optional(Type.String({ description: 'A path such as /users/:id.' })),
    transaction_config: Type.Optional(Type.Object({}, { description: '{enabled, auto_rollback, isolation_level?}' })),
  },
  { title: 'FunctionDefinition', description: "A stored function as the ekoDB clients' Function objects give it." },
);

const StoredFunctionView = Type.Intersect(
  [FunctionDefinition, Type.Object({ id: Type.String(), created_at: Type.String(), updated_at: Type.String() })],
  { title: 'StoredFunction', description: 'A definition as saved; key material is redacted for non-admins.' },
);

const CallAnswer = Type.Union([
  Type.Object({
    records: Type.Array(Type.Object({}), { description: 'The working records at the end, typed per settings.' }),
    stats: Type.Object({
      input_count: Type.Integer(),
      output_count: Type.Integer(),
      execution_time_ms: Type.Number(),
      stages_executed: Type.Integer(),
      stage_stats: Type.Array(Type.Object({})),
    }),
  }),
  Type.Object({}, { description: "A Return step's fields." }),
]);

const CALLED =
  'A Return step answers its fields with its status_code (2xx here; another status keeps its body); a failing ' +
  'step answers {error: true, operation_index, operation_type, message, details} with its status.';

const Parameters = Type.Object({}, { description: 'The parameter values, by name.' });

const idParam = (raw: RawInput) => param(raw, 'id');

/** A definition read back: exactly as saved for admins, with literal key material redacted for everyone else. */
function readBack(definition: StoredFunction, ctx: Context): Record<string, unknown> {
  const wire = definitionToWire(definition);
  return ctx.principal?.admin ? wire : redactDefinition(wire);
}

export const functionsCreate = defineProcedure({
  name: 'functions.create',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Save a stored function',
    description: 'Validated and compiled: a mistake is a 400 naming its path; an existing label is 409.',
    body: FunctionDefinition,
    response: Type.Object({ status: Type.Literal('success'), id: Type.String() }),
  },
  input: (raw) => raw.body,
  handler: async (body, ctx) => ({ status: 'success', id: await ctx.functions.registry.create(body) }),
});

export const functionsList = defineProcedure({
  name: 'functions.list',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'List the stored functions',
    query: { tags: Type.String({ description: 'Only those carrying any of these tags (comma-separated).' }) },
    response: Type.Array(StoredFunctionView),
  },
  input: (raw) => queryList(raw, 'tags'),
  handler: (tags, ctx) => ctx.functions.registry.list(tags).map((f) => readBack(f, ctx)),
});

export const functionsGet = defineProcedure({
  name: 'functions.get',
  kind: 'query',
  access: 'user',
  schema: { summary: 'A stored function, by id or label', response: StoredFunctionView },
  input: idParam,
  handler: (id, ctx) => readBack(ctx.functions.registry.get(id), ctx),
});

export const functionsReplace = defineProcedure({
  name: 'functions.replace',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Replace a stored function',
    body: FunctionDefinition,
    response: Type.Object({ status: Type.Literal('updated'), id: Type.String() }),
  },
  input: (raw) => ({ id: idParam(raw), body: raw.body }),
  handler: async (input, ctx) => {
    const replaced = await ctx.functions.registry.replace(input.id, input.body);
    return { status: 'updated', id: replaced.id };
  },
});

export const functionsDelete = defineProcedure({
  name: 'functions.delete',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Delete a stored function',
    response: Type.Object({ status: Type.Literal('deleted'), id: Type.String() }),
  },
  input: idParam,
  handler: async (id, ctx) => ({ status: 'deleted', id: (await ctx.functions.registry.delete(id)).id }),
});

// Calls are queries to the gate: a function that only reads still answers while the engine is read-only.
export const functionsCall = defineProcedure({
  name: 'functions.call',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'Call a stored function, by id or label',
    description: `Its steps run with instance-wide rights. ${CALLED}`,
    body: Parameters,
    response: CallAnswer,
    statuses: { '2XX': Type.Object({}, { description: "A Return step's fields." }) },
  },
  input: (raw) => ({ id: idParam(raw), body: raw.body }),
  handler: async (input, ctx) => callAnswer(await ctx.functions.call(input.id, input.body), ctx),
});

/** One procedure per method: the route table names a method per line. */
const routed = (method: string) =>
  defineProcedure({
    name: `functions.route.${method.toLowerCase()}`,
    kind: 'query',
    access: 'user',
    schema: {
      summary: `Call the function routed at ${method} /api/route/...`,
      description:
        'The function whose http_method and http_path (/users/:id) match; the fewest :placeholders win, and ' +
        `body members override path parameters. ${CALLED}`,
      ...(method === 'GET' ? {} : { body: Parameters }),
      response: CallAnswer,
      statuses: { '2XX': Type.Object({}, { description: "A Return step's fields." }) },
    },
    input: (raw) => ({ path: param(raw, 'path'), body: raw.body }),
    handler: async (input: { path: string; body: unknown }, ctx: Context) =>
      callAnswer(await ctx.functions.callRoute(method, input.path, input.body), ctx),
  });

export const functionsRouteGet = routed('GET');
export const functionsRoutePost = routed('POST');
export const functionsRoutePut = routed('PUT');
export const functionsRoutePatch = routed('PATCH');
export const functionsRouteDelete = routed('DELETE');

function callAnswer(result: CallResult, ctx: Context): unknown {
  if (result.returned) {
    const { statusCode, fields } = result.returned;
    return new WithStatus(statusCode, ctx.typed ? fields : unwrapTyped(fields));
  }
  return new RecordsAnswer(result.records, result.stats, ctx.typed);
}

/** Untyped mode: typed wrappers in a Return body (from typed record fields or parameters) become their bare values. */
function unwrapTyped(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrapTyped);
  if (isTypedWrapper(value)) return unwrapTyped(value.value);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) out[key] = unwrapTyped(member);
    return out;
  }
  return value;
}
