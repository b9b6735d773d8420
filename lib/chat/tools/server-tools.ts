/**
 * Server tools: what a model (or a client through POST /api/chat/tools/execute)
 * may do with the database, one entry per tool in `SERVER_TOOLS`. Read tools
 * always; write tools only with `allow_write_operations`. Every call runs on
 * the caller's Session and checks the caller's collection permissions
 * (`ToolContext.checkAccess`) and the turn's `allowed_collections`, so a tool
 * can never reach what its caller could not. Records come back bare (plain
 * JSON, as a model reads them), at most MAX_RESULTS per call.
 */
import { InvalidInput, NotFound, Forbidden, toDbError } from '../../errors.js';
import { isPlainObject, parseQuery, parseSearch, recordToWire, type Session } from '../../engine/index.js';
import type { ToolSpec } from '../providers/provider.js';

export const MAX_RESULTS = 50;

/** What a tool runs with: the caller's session and rights. */
export interface ToolContext {
  readonly db: Session;
  /** Collection names the caller may see (internal ones left out). */
  readonly collections: () => readonly string[];
  /** Throws Forbidden when the caller may not `mode` the collection. */
  readonly checkAccess: (collection: string, mode: 'read' | 'write') => void;
  readonly allowWrite: boolean;
  readonly allowedCollections?: readonly string[];
}

export interface ToolOutcome {
  readonly success: boolean;
  readonly result?: unknown;
  readonly error?: string;
}

interface ServerTool {
  readonly spec: ToolSpec;
  readonly write: boolean;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> | unknown;
}

const COLLECTION = { type: 'string', description: 'Collection name' };
const schema = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required });

function text(args: Record<string, unknown>, name: string): string {
  const v = args[name];
  if (typeof v !== 'string' || v === '') throw new InvalidInput(`'${name}' is required: a non-empty string`);
  return v;
}

function limit(args: Record<string, unknown>): number {
  const v = args.limit;
  if (v === undefined || v === null) return 10;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new InvalidInput("'limit' must be a positive integer");
  return Math.min(v, MAX_RESULTS);
}

function object(args: Record<string, unknown>, name: string): Record<string, unknown> {
  const v = args[name];
  if (!isPlainObject(v)) throw new InvalidInput(`'${name}' is required: an object`);
  return v;
}

/** The collection an argument names, after the turn's and the caller's limits. */
function collection(args: Record<string, unknown>, ctx: ToolContext, mode: 'read' | 'write'): string {
  const c = text(args, 'collection');
  if (ctx.allowedCollections && !ctx.allowedCollections.includes(c)) throw new Forbidden(`Tools may not use collection '${c}' in this chat`);
  ctx.checkAccess(c, mode);
  return c;
}

const bare = (f: Parameters<typeof recordToWire>[0]) => recordToWire(f, { typed: false });

export const SERVER_TOOLS: Readonly<Record<string, ServerTool>> = {
  list_collections: {
    spec: { name: 'list_collections', description: 'List the collections you may read.', parameters: schema({}, []) },
    write: false,
    run: (_a, ctx) => ctx.collections().filter((c) => (!ctx.allowedCollections || ctx.allowedCollections.includes(c)) && allowed(ctx, c)),
  },
  count_records: {
    spec: { name: 'count_records', description: 'Count the records of a collection, optionally matching a filter.', parameters: schema({ collection: COLLECTION, filter: { type: 'object', description: 'Query filter' } }, ['collection']) },
    write: false,
    run: async (a, ctx) => {
      const c = collection(a, ctx, 'read');
      return { collection: c, count: (await ctx.db.find(c, parseQuery(a.filter === undefined || a.filter === null ? {} : { filter: a.filter }))).length };
    },
  },
  find_records: {
    spec: {
      name: 'find_records', description: `Find records of a collection by a query filter (at most ${MAX_RESULTS}).`,
      parameters: schema({ collection: COLLECTION, filter: { type: 'object' }, sort: { type: 'array' }, limit: { type: 'integer' } }, ['collection']),
    },
    write: false,
    run: async (a, ctx) => {
      const c = collection(a, ctx, 'read');
      const q = parseQuery({ ...(a.filter !== undefined && a.filter !== null ? { filter: a.filter } : {}), ...(a.sort !== undefined ? { sort: a.sort } : {}), limit: limit(a) });
      return (await ctx.db.find(c, q)).map(bare);
    },
  },
  find_by_id: {
    spec: { name: 'find_by_id', description: 'Read one record by its id.', parameters: schema({ collection: COLLECTION, id: { type: 'string' } }, ['collection', 'id']) },
    write: false,
    run: (a, ctx) => bare(ctx.db.findById(collection(a, ctx, 'read'), text(a, 'id'))),
  },
  search_records: {
    spec: {
      name: 'search_records', description: 'Full-text search over a collection.',
      parameters: schema({ collection: COLLECTION, query: { type: 'string' }, limit: { type: 'integer' } }, ['collection', 'query']),
    },
    write: false,
    run: async (a, ctx) => {
      const c = collection(a, ctx, 'read');
      const found = await ctx.db.search(c, parseSearch({ query: text(a, 'query'), limit: limit(a) }));
      return found.results.map((h) => ({ score: h.score, record: bare(h.record) }));
    },
  },
  insert_record: {
    spec: { name: 'insert_record', description: 'Insert a record (needs allow_write_operations).', parameters: schema({ collection: COLLECTION, record: { type: 'object' } }, ['collection', 'record']) },
    write: true,
    run: async (a, ctx) => ({ id: await ctx.db.insert(collection(a, ctx, 'write'), object(a, 'record')) }),
  },
  update_record: {
    spec: {
      name: 'update_record', description: 'Merge fields into a record (needs allow_write_operations).',
      parameters: schema({ collection: COLLECTION, id: { type: 'string' }, record: { type: 'object' } }, ['collection', 'id', 'record']),
    },
    write: true,
    run: async (a, ctx) => bare(await ctx.db.update(collection(a, ctx, 'write'), text(a, 'id'), object(a, 'record'))),
  },
  delete_record: {
    spec: { name: 'delete_record', description: 'Delete a record into the trash (needs allow_write_operations).', parameters: schema({ collection: COLLECTION, id: { type: 'string' } }, ['collection', 'id']) },
    write: true,
    run: async (a, ctx) => ({ id: await ctx.db.delete(collection(a, ctx, 'write'), text(a, 'id')) }),
  },
};

function allowed(ctx: ToolContext, c: string): boolean {
  try { ctx.checkAccess(c, 'read'); return true; } catch { return false; }
}

export function isServerTool(name: string): boolean {
  return Object.hasOwn(SERVER_TOOLS, name);
}

/** The server tools offered: read ones, write ones when allowed, minus what `allowed`/`excluded` leave out. */
export function serverToolSpecs(allowWrite: boolean, allowedTools?: readonly string[], excluded: readonly string[] = []): ToolSpec[] {
  return Object.values(SERVER_TOOLS)
    .filter((t) => (allowWrite || !t.write) && (!allowedTools || allowedTools.includes(t.spec.name)) && !excluded.includes(t.spec.name))
    .map((t) => t.spec);
}

/**
 * Runs one server tool. A refusal or a bad argument is an unsuccessful
 * outcome with the message (the model reads it and may try again), never a
 * thrown error; an unknown tool is NotFound, a write tool without
 * allow_write_operations Forbidden, both as outcomes too.
 */
export async function executeServerTool(name: string, args: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  try {
    if (!isServerTool(name)) throw new NotFound(`Unknown tool '${name}'`);
    const tool = SERVER_TOOLS[name]!;
    if (tool.write && !ctx.allowWrite) throw new Forbidden(`Tool '${name}' writes; it needs allow_write_operations`);
    if (args !== undefined && args !== null && !isPlainObject(args)) throw new InvalidInput("Tool 'params' must be an object");
    return { success: true, result: await tool.run((args ?? {}) as Record<string, unknown>, ctx) };
  } catch (err) {
    const e = toDbError(err);
    if (e.status >= 500) throw err;
    return { success: false, error: e.message };
  }
}
