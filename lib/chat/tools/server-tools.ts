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
  readonly session: Session;
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
  const value = args[name];
  if (typeof value !== 'string' || value === '') throw new InvalidInput(`'${name}' is required: a non-empty string`);
  return value;
}

function limit(args: Record<string, unknown>): number {
  const value = args.limit;
  if (value === undefined || value === null) return 10;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new InvalidInput("'limit' must be a positive integer");
  return Math.min(value, MAX_RESULTS);
}

function object(args: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = args[name];
  if (!isPlainObject(value)) throw new InvalidInput(`'${name}' is required: an object`);
  return value;
}

/** The collection an argument names, after the turn's and the caller's limits. */
function collection(args: Record<string, unknown>, ctx: ToolContext, mode: 'read' | 'write'): string {
  const name = text(args, 'collection');
  if (ctx.allowedCollections && !ctx.allowedCollections.includes(name)) {
    throw new Forbidden(`Tools may not use collection '${name}' in this chat`);
  }
  ctx.checkAccess(name, mode);
  return name;
}

const bare = (fields: Parameters<typeof recordToWire>[0]) => recordToWire(fields, { typed: false });

export const SERVER_TOOLS: Readonly<Record<string, ServerTool>> = {
  list_collections: {
    spec: { name: 'list_collections', description: 'List the collections you may read.', parameters: schema({}, []) },
    write: false,
    run: (_args, ctx) =>
      ctx
        .collections()
        .filter((name) => (!ctx.allowedCollections || ctx.allowedCollections.includes(name)) && allowed(ctx, name)),
  },
  count_records: {
    spec: {
      name: 'count_records',
      description: 'Count the records of a collection, optionally matching a filter.',
      parameters: schema({ collection: COLLECTION, filter: { type: 'object', description: 'Query filter' } }, [
        'collection',
      ]),
    },
    write: false,
    run: async (args, ctx) => {
      const name = collection(args, ctx, 'read');
      const query = parseQuery(args.filter === undefined || args.filter === null ? {} : { filter: args.filter });
      return { collection: name, count: (await ctx.session.find(name, query)).length };
    },
  },
  find_records: {
    spec: {
      name: 'find_records',
      description: `Find records of a collection by a query filter (at most ${MAX_RESULTS}).`,
      parameters: schema(
        { collection: COLLECTION, filter: { type: 'object' }, sort: { type: 'array' }, limit: { type: 'integer' } },
        ['collection'],
      ),
    },
    write: false,
    run: async (args, ctx) => {
      const name = collection(args, ctx, 'read');
      const query = parseQuery({
        ...(args.filter !== undefined && args.filter !== null ? { filter: args.filter } : {}),
        ...(args.sort !== undefined ? { sort: args.sort } : {}),
        limit: limit(args),
      });
      return (await ctx.session.find(name, query)).map(bare);
    },
  },
  find_by_id: {
    spec: {
      name: 'find_by_id',
      description: 'Read one record by its id.',
      parameters: schema({ collection: COLLECTION, id: { type: 'string' } }, ['collection', 'id']),
    },
    write: false,
    run: (args, ctx) => bare(ctx.session.findById(collection(args, ctx, 'read'), text(args, 'id'))),
  },
  search_records: {
    spec: {
      name: 'search_records',
      description: 'Full-text search over a collection.',
      parameters: schema({ collection: COLLECTION, query: { type: 'string' }, limit: { type: 'integer' } }, [
        'collection',
        'query',
      ]),
    },
    write: false,
    run: async (args, ctx) => {
      const name = collection(args, ctx, 'read');
      const found = await ctx.session.search(name, parseSearch({ query: text(args, 'query'), limit: limit(args) }));
      return found.results.map((hit) => ({ score: hit.score, record: bare(hit.record) }));
    },
  },
  insert_record: {
    spec: {
      name: 'insert_record',
      description: 'Insert a record (needs allow_write_operations).',
      parameters: schema({ collection: COLLECTION, record: { type: 'object' } }, ['collection', 'record']),
    },
    write: true,
    run: async (args, ctx) => ({
      id: await ctx.session.insert(collection(args, ctx, 'write'), object(args, 'record')),
    }),
  },
  update_record: {
    spec: {
      name: 'update_record',
      description: 'Merge fields into a record (needs allow_write_operations).',
      parameters: schema({ collection: COLLECTION, id: { type: 'string' }, record: { type: 'object' } }, [
        'collection',
        'id',
        'record',
      ]),
    },
    write: true,
    run: async (args, ctx) => {
      const updated = await ctx.session.update(
        collection(args, ctx, 'write'),
        text(args, 'id'),
        object(args, 'record'),
      );
      return bare(updated);
    },
  },
  delete_record: {
    spec: {
      name: 'delete_record',
      description: 'Delete a record into the trash (needs allow_write_operations).',
      parameters: schema({ collection: COLLECTION, id: { type: 'string' } }, ['collection', 'id']),
    },
    write: true,
    run: async (args, ctx) => ({ id: await ctx.session.delete(collection(args, ctx, 'write'), text(args, 'id')) }),
  },
};

function allowed(ctx: ToolContext, collection: string): boolean {
  try {
    ctx.checkAccess(collection, 'read');
    return true;
  } catch {
    return false;
  }
}

export function isServerTool(name: string): boolean {
  return Object.hasOwn(SERVER_TOOLS, name);
}

/** The server tools offered: read ones, write ones when allowed, minus what `allowed`/`excluded` leave out. */
export function serverToolSpecs(
  allowWrite: boolean,
  allowedTools?: readonly string[],
  excluded: readonly string[] = [],
): ToolSpec[] {
  return Object.values(SERVER_TOOLS)
    .filter(
      (t) =>
        (allowWrite || !t.write) &&
        (!allowedTools || allowedTools.includes(t.spec.name)) &&
        !excluded.includes(t.spec.name),
    )
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
    if (args !== undefined && args !== null && !isPlainObject(args))
      throw new InvalidInput("Tool 'params' must be an object");
    return { success: true, result: await tool.run((args ?? {}) as Record<string, unknown>, ctx) };
  } catch (err) {
    const error = toDbError(err);
    if (error.status >= 500) throw err;
    return { success: false, error: error.message };
  }
}
