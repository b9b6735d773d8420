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
import { isPlainObject, isTypedWrapper, recordToWire } from '../../engine/index.js';
import { definitionToWire, redactDefinition, type CallResult, type StoredFunction } from '../../functions/index.js';
import { defineProcedure, WithStatus, type RawInput } from './procedure.js';
import { param, queryList } from './input.js';
import type { Context } from './context.js';

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
  input: (raw) => raw.body,
  handler: async (body, ctx) => ({ status: 'success', id: await ctx.functions.registry.create(body) }),
});

export const functionsList = defineProcedure({
  name: 'functions.list',
  kind: 'query',
  access: 'user',
  input: (raw) => queryList(raw, 'tags'),
  handler: (tags, ctx) => ctx.functions.registry.list(tags).map((f) => readBack(f, ctx)),
});

export const functionsGet = defineProcedure({
  name: 'functions.get',
  kind: 'query',
  access: 'user',
  input: idParam,
  handler: (id, ctx) => readBack(ctx.functions.registry.get(id), ctx),
});

export const functionsReplace = defineProcedure({
  name: 'functions.replace',
  kind: 'mutation',
  access: 'admin',
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
  input: idParam,
  handler: async (id, ctx) => ({ status: 'deleted', id: (await ctx.functions.registry.delete(id)).id }),
});

// Calls are queries to the gate: a function that only reads still answers while the engine is read-only.
export const functionsCall = defineProcedure({
  name: 'functions.call',
  kind: 'query',
  access: 'user',
  input: (raw) => ({ id: idParam(raw), body: raw.body }),
  handler: async (input, ctx) => callAnswer(await ctx.functions.call(input.id, input.body), ctx),
});

/** One procedure per method: the route table names a method per line. */
const routed = (method: string) =>
  defineProcedure({
    name: `functions.route.${method.toLowerCase()}`,
    kind: 'query',
    access: 'user',
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
  return {
    records: result.records.map((r) => recordToWire(r, { typed: ctx.typed })),
    stats: result.stats,
  };
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
