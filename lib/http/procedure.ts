/**
 * Typed procedures: each operation is declared once with its access level,
 * input parser and handler; HTTP routes (and later WebSocket messages) are
 * thin adapters over `callProcedure`, so validation, permissions and errors
 * are identical on every transport.
 */
import { Forbidden, MESSAGES, NotFound } from '../errors.js';
import type { Context } from './context.js';
import { checkCollectionAccess } from './permissions.js';

export type Access = 'public' | 'user' | 'admin';
export type Kind = 'query' | 'mutation';

export interface Procedure<I = unknown, O = unknown> {
  readonly name: string;
  readonly kind: Kind;
  readonly access: Access;
  /** Parses and validates raw input; throws InvalidInput. */
  readonly input: (raw: RawInput) => I;
  /** What the procedure touches: checked by the gate in callProcedure before the handler runs. */
  readonly scope?: (input: I) => Scope;
  readonly handler: (input: I, ctx: Context) => O | Promise<O>;
}

/**
 * The collections a procedure reads or writes (join targets included; the
 * fields it writes, for field-level permissions) and the transaction its
 * statements join. The gate checks the collections and builds `ctx.session`
 * (opening the transaction checks that the caller owns it).
 */
export interface Scope {
  readonly collections?: ReadonlyArray<{ readonly name: string; readonly mode: 'read' | 'write'; readonly fields?: string[] }>;
  readonly transaction?: string;
}

/** What a transport hands over: path params, query string and decoded body. */
export interface RawInput {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | string[]>>;
  readonly body: unknown;
}

/** A result whose HTTP status depends on the outcome (batch 201/200/207/400). */
export class WithStatus {
  constructor(readonly status: number, readonly body: unknown) {}
}

export function defineProcedure<I, O>(p: Procedure<I, O>): Procedure<I, O> {
  return p;
}

export type Registry = ReadonlyMap<string, Procedure<any, any>>;

export function buildRegistry(list: ReadonlyArray<Procedure<any, any>>): Registry {
  const map = new Map<string, Procedure<any, any>>();
  for (const p of list) {
    if (map.has(p.name)) throw new Error(`duplicate procedure name ${p.name}`);
    map.set(p.name, p);
  }
  return map;
}

/**
 * The one entry point: look up, check access, parse input, then the gate
 * (collection permissions, read-only mode, the session), run the handler.
 */
export async function callProcedure(registry: Registry, name: string, raw: RawInput, ctx: Context): Promise<unknown> {
  const proc = registry.get(name);
  if (!proc) throw new NotFound(`Unknown procedure '${name}'`);
  if (proc.access === 'admin' && !ctx.principal?.admin) throw new Forbidden(MESSAGES.adminRequired);
  const input = proc.input(raw);
  const scope = proc.scope?.(input);
  if (ctx.principal) for (const c of scope?.collections ?? []) checkCollectionAccess(ctx.principal, c.name, c.mode, c.fields);
  if (proc.kind === 'mutation' && ctx.db.readOnly) throw ctx.db.storage.refuse();
  ctx.session = ctx.db.session(ctx.principal, scope?.transaction);
  return proc.handler(input, ctx);
}
