/**
 * Typed procedures: each operation is declared once with its access level,
 * input parser and handler; HTTP routes and WebSocket messages are thin
 * adapters over `callProcedure`, so validation, permissions and errors are
 * identical on every transport.
 *
 * A `stream` procedure's handler returns an async iterable of events, and
 * stops when `ctx.signal` fires (the client went away or unsubscribed);
 * stream/stream-renderer.ts turns the events into SSE or WebSocket frames.
 */
import { Forbidden, MESSAGES, NotFound } from '../../errors.js';
import type { Context, Principal } from './context.js';
import { checkCollectionAccess } from '../auth/permissions.js';

export type Access = 'public' | 'user' | 'admin';
export type Kind = 'query' | 'mutation' | 'stream';

/** One event of a stream procedure: its name (an SSE `event:`, a WebSocket type by table) and data. */
export interface StreamEvent {
  readonly event: string;
  readonly data: unknown;
}

export interface Procedure<I = unknown, O = unknown> {
  readonly name: string;
  readonly kind: Kind;
  readonly access: Access;
  /**
   * A public procedure that shows more to an admin (health): the caller is
   * looked up when a token comes, and a missing or bad token is no error.
   */
  readonly optionalCaller?: boolean;
  /** Parses and validates raw input; throws InvalidInput. */
  readonly input: (raw: RawInput) => I;
  /**
   * What the procedure touches: checked by the gate in callProcedure before the handler runs. Methods, not
   * function properties, so that a registry of procedures of every input type is a `Procedure[]`.
   */
  scope?(input: I): Scope;
  handler(input: I, ctx: Context): O | Promise<O>;
  /** What it takes and answers on the wire, for the OpenAPI document (lib/http/openapi). */
  readonly schema?: ProcedureSchema;
}

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 reads it): a TypeBox schema or a plain object. */
export type JsonSchema = object;

/**
 * A procedure's wire shapes, declared beside its parser. The parser stays
 * the one that checks (its messages are the product's); the specs check
 * that what it accepts fits `body` and that what the handler answers fits
 * `response`. Path parameters come from the route (text unless `params`
 * says more).
 */
export interface ProcedureSchema {
  /** One line: what the route does. */
  readonly summary: string;
  /** Who may call it, what it refuses, anything a client must know beyond the shapes. */
  readonly description?: string;
  /** Path parameters narrower than any text (a step index), by name. */
  readonly params?: Readonly<Record<string, JsonSchema>>;
  /** Query parameters by name, each as its text is read. */
  readonly query?: Readonly<Record<string, JsonSchema>>;
  readonly body?: JsonSchema;
  /** The answer at the route's success status; for a stream, the data of one event. */
  readonly response: JsonSchema;
  /** The success answer's media type when it is a file rather than an encoded value (wire/file-answer.ts). */
  readonly media?: string;
  /** Answers at other statuses (`207`, or a range such as `2XX`), for a result that picks its own (`WithStatus`). */
  readonly statuses?: Readonly<Record<string, JsonSchema>>;
}

/**
 * The collections a procedure reads or writes (join targets included; the
 * fields it writes, for field-level permissions) and the transaction its
 * statements join. The gate checks the collections and builds `ctx.session`
 * (opening the transaction checks that the caller owns it).
 */
export interface Scope {
  readonly collections?: ReadonlyArray<{
    readonly name: string;
    readonly mode: 'read' | 'write';
    /** Asked for only when the key limits the fields it may write (a large batch walks every body for them). */
    readonly fields?: () => readonly string[];
  }>;
  readonly transaction?: string;
}

/**
 * A procedure's arguments as a transport hands them over, before parsing:
 * named arguments and the body. Over HTTP the named arguments are the path
 * parameters and the query string (strings, a repeated parameter a list; a
 * path parameter wins over a query parameter of the same name). WebSocket
 * adapters pass the payload's own values (a boolean is a boolean). The
 * helpers of input.ts read them, so every transport gets the same checks.
 */
export interface RawInput {
  readonly args: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/** A result whose HTTP status depends on the outcome (batch 201/200/207/400). */
export class WithStatus {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export function defineProcedure<I, O>(procedure: Procedure<I, O>): Procedure<I, O> {
  return procedure;
}

export type Registry = ReadonlyMap<string, Procedure>;

export function buildRegistry(list: ReadonlyArray<Procedure>): Registry {
  const map = new Map<string, Procedure>();
  for (const procedure of list) {
    if (map.has(procedure.name)) throw new Error(`duplicate procedure name ${procedure.name}`);
    map.set(procedure.name, procedure);
  }
  return map;
}

/**
 * The one entry point: look up, check the kind, check access, parse input,
 * then the gate (collection permissions, read-only mode, the session), run
 * the handler. `as` says what the caller serves: a single answer (`call`) or
 * a stream, whose result is the handler's AsyncIterable<StreamEvent>.
 * Returns what the handler returns: a promise from an async handler, the
 * value itself from a synchronous one (a read answers without a promise);
 * a refusal is thrown.
 */
export function callProcedure(
  registry: Registry,
  name: string,
  raw: RawInput,
  ctx: Context,
  as: 'call' | 'stream' = 'call',
): unknown {
  const proc = registry.get(name);
  if (!proc) throw new NotFound(`Unknown procedure '${name}'`);
  // A table naming a stream for a single answer (or the reverse) is a bug in the table, not in the request.
  if ((proc.kind === 'stream') !== (as === 'stream'))
    throw new Error(`procedure '${name}' is a ${proc.kind}, served as a ${as}`);
  const { input, scope } = admit(proc, raw, ctx.principal);
  if (proc.kind === 'mutation') {
    if (ctx.storage.readOnly) throw ctx.storage.refuse();
    // A cluster's replica sends writes to the primary (307) before doing any of their work.
    ctx.cluster?.admitWrite();
  }
  ctx.session = ctx.sessions.session(ctx.principal, scope?.transaction);
  return proc.handler(input, ctx);
}

/**
 * The access part of the gate: the admin flag, the input, and collection
 * permissions over the scope. Shared by a call and the re-check of an open stream.
 */
function admit<I>(
  proc: Procedure<I, unknown>,
  raw: RawInput,
  principal: Principal | undefined,
): { input: I; scope: Scope | undefined } {
  if (proc.access === 'admin' && !principal?.admin) throw new Forbidden(MESSAGES.adminRequired);
  const input = proc.input(raw);
  const scope = proc.scope?.(input);
  if (principal) {
    for (const { name, mode, fields } of scope?.collections ?? []) checkCollectionAccess(principal, name, mode, fields);
  }
  return { input, scope };
}

/**
 * For an open stream, when its caller's key changed: throws what
 * `callProcedure` would throw now for the same arguments (admin flag,
 * collection permissions), so the transport can end the stream.
 */
export function recheckAccess(registry: Registry, name: string, raw: RawInput, principal: Principal): void {
  const proc = registry.get(name);
  if (!proc) throw new NotFound(`Unknown procedure '${name}'`);
  admit(proc, raw, principal);
}

/** The collection a procedure's arguments name as its scope, if any (for log lines about a stream). */
export function scopeOf(registry: Registry, name: string, raw: RawInput): string | undefined {
  const proc = registry.get(name);
  return proc?.scope?.(proc.input(raw)).collections?.[0]?.name;
}
