/**
 * The write steps that insert, upsert and delete (update.ts holds the
 * update steps): records written through `run.session`, each statement
 * atomic on its own (auto-commit) or staged in the function's transaction.
 * In a transactional function a filter sees the function's earlier staged
 * writes.
 *
 * Members every write step shares, read here: the target `collection` (a template),
 * `bypass_ripple` (literal, default false), `record_id` (an id or a
 * primary-key-alias value), and a record body (`record` / `updates`: an
 * object with placeholders or a Parameter reference) with the optional
 * `ttl` (seconds or a duration string) merged in as the engine's `ttl`
 * member. Statements over many records are all or nothing.
 */
import { checkLimit, isPlainObject, isTypedWrapper } from '../../engine/index.js';
import { InvalidInput } from '../../errors.js';
import { isConstant, type Template } from '../template.js';
import { requiredFilter, resolveFilter, type FilterMember } from './members.js';
import { step, type Execution, type MemberNames, type MemberReader, type Row } from './step.js';

export interface WriteTarget {
  readonly collection: Template;
  readonly bypassRipple: boolean;
}

export function compileTarget(members: MemberReader): WriteTarget {
  return {
    collection: members.template('collection'),
    bypassRipple: members.optionalBoolean('bypass_ripple') ?? false,
  };
}

export function collectionOf(target: WriteTarget, run: Execution, row: Row | undefined): string {
  return run.text(target.collection, row, 'collection');
}

/** A record body member and the step's `ttl`. */
export interface BodyMember {
  readonly body: Template;
  /** The member's canonical name, for messages. */
  readonly member: string;
  readonly ttl?: Template;
}

export function compileBody(members: MemberReader, names: MemberNames): BodyMember {
  const ttl = members.optionalTemplate('ttl');
  return {
    body: members.template(names),
    member: typeof names === 'string' ? names : names[0]!,
    ...(ttl ? { ttl } : {}),
  };
}

/** The body resolved against `row`: it must be a JSON object; `ttl` joins it. */
export function resolveBody(member: BodyMember, run: Execution, row: Row | undefined): Record<string, unknown> {
  const body = run.resolve(member.body, row);
  if (!isPlainObject(body)) throw new InvalidInput(`'${member.member}' must resolve to a JSON object`);
  return member.ttl ? { ...body, ttl: run.resolve(member.ttl, row) } : body;
}

/** Which records: `record_id` or `filter`, never both; undefined when neither is given. */
export type Match = { readonly recordId: Template } | { readonly filter: FilterMember };

export function compileMatch(members: MemberReader): Match | undefined {
  if (members.has('record_id') && members.has('filter')) members.fail("give either 'record_id' or 'filter', not both");
  if (members.has('filter')) return { filter: requiredFilter(members, 'filter') };
  return members.has('record_id') ? { recordId: members.template('record_id') } : undefined;
}

export function requiredMatch(members: MemberReader): Match {
  return compileMatch(members) ?? { recordId: members.template('record_id') };
}

interface InsertConfig {
  readonly collection: Template;
  readonly record: Template;
  readonly ttl?: Template;
  readonly bypassRipple: boolean;
}

/**
 * Insert: one record into a collection. `record` is an object (placeholders
 * resolved against the first working record and the parameters) or a
 * Parameter reference; `ttl` (seconds or a duration string) becomes the
 * record's expiry. The working records become the inserted record.
 */
export const insert = step<InsertConfig>({
  type: 'Insert',
  access: 'write',
  compile: (members) => {
    const ttl = members.optionalTemplate('ttl');
    return {
      collection: members.template('collection'),
      record: members.template('record'),
      ...(ttl ? { ttl } : {}),
      bypassRipple: members.optionalBoolean('bypass_ripple') ?? false,
    };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const collection = run.text(config.collection, row, 'collection');
    const record = run.resolve(config.record, row);
    if (!isPlainObject(record)) throw new InvalidInput("Insert 'record' must resolve to a JSON object");
    const body = config.ttl ? { ...record, ttl: run.resolve(config.ttl, row) } : record;
    const id = await run.session.insert(collection, body, config.bypassRipple);
    return [run.session.findById(collection, id)];
  },
});

interface BatchInsertConfig {
  readonly target: WriteTarget;
  readonly records: Template;
  readonly ttl?: Template;
}

/**
 * BatchInsert: many records into one collection, all or none (one durable
 * batch; one staged statement in a transactional function). `records` is an
 * array whose items are objects (placeholders and Parameter references
 * inside) or Parameter references, or one Parameter reference to an array;
 * `ttl` applies to every record. At most `max_batch_size` records. The
 * working records become the inserted records, in order.
 */
export const batchInsert = step<BatchInsertConfig>({
  type: 'BatchInsert',
  access: 'write',
  compile: (members) => {
    const records = members.template('records');
    if (isConstant(records)) {
      const list = records.value;
      if (!Array.isArray(list))
        return members.fail('must be an array of records, a Parameter reference or a placeholder', 'records');
      const bad = list.findIndex((record: unknown) => !isPlainObject(record));
      if (bad >= 0) members.fail('must be a JSON object', `records[${bad}]`);
    }
    const ttl = members.optionalTemplate('ttl');
    return { target: compileTarget(members), records, ...(ttl ? { ttl } : {}) };
  },
  run: (config, rows, run) => {
    const row = rows[0];
    const records = run.resolve(config.records, row);
    if (!Array.isArray(records)) throw new InvalidInput("'records' must resolve to an array of JSON objects");
    checkLimit(records.length, run.settings().max_batch_size, 'records', 'records');
    const ttl = config.ttl ? run.resolve(config.ttl, row) : undefined;
    const bodies = records.map((record, i) => {
      if (!isPlainObject(record)) throw new InvalidInput(`'records[${i}]' must resolve to a JSON object`);
      return ttl === undefined ? record : { ...record, ttl };
    });
    return run.session.insertAll(collectionOf(config.target, run, row), bodies, config.target.bypassRipple);
  },
});

/**
 * Upsert (spec-only; no client builds it, so its members follow the other
 * write steps): updates the target when it exists, else inserts, in one
 * statement.
 *
 * - `collection`; `record` (an object with placeholders, or a Parameter
 *   reference); `bypass_ripple?`; `ttl?`.
 * - the target, at most one of: `record_id` (that record: merged into when
 *   live, else `record` is inserted under that id), or `filter` (every match
 *   is merged into; when none matches, `record` is inserted as given:
 *   values of the filter are not copied into it). Without either, the
 *   record's own `id` is the target, and a record without `id` is simply
 *   inserted.
 *
 * This is the clients' upsert (update, then insert on 404) done atomically.
 * The working records become the written records.
 */
export const upsert = step<{ readonly target: WriteTarget; readonly match?: Match; readonly record: BodyMember }>({
  type: 'Upsert',
  access: 'write',
  compile: (members) => {
    const match = compileMatch(members);
    return { target: compileTarget(members), record: compileBody(members, 'record'), ...(match ? { match } : {}) };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const collection = collectionOf(config.target, run, row);
    const record = resolveBody(config.record, run, row);
    const bypass = config.target.bypassRipple;
    if (config.match && 'filter' in config.match) {
      return run.session.upsert(collection, { filter: resolveFilter(config.match.filter, run, row) }, record, bypass);
    }
    const id = config.match ? run.text(config.match.recordId, row, 'record_id') : ownId(record.id);
    return id === undefined
      ? run.session.insertAll(collection, [record], bypass)
      : run.session.upsert(collection, { id }, record, bypass);
  },
});

/** The record's own id member (bare or a String wrapper), undefined when it has none. */
function ownId(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const id = isTypedWrapper(raw) ? raw.value : raw;
  if (typeof id !== 'string' || id === '') throw new InvalidInput("Upsert 'record.id' must be a non-empty string");
  return id;
}

/**
 * Delete: moves every record of `collection` matching `filter` to the
 * trash, all or none. The working records become the deleted records as
 * they were (none when nothing matched).
 */
export const deleteStep = step<{ readonly target: WriteTarget; readonly filter: FilterMember }>({
  type: 'Delete',
  access: 'write',
  compile: (members) => ({ target: compileTarget(members), filter: requiredFilter(members, 'filter') }),
  run: (config, rows, run) => {
    const row = rows[0];
    const collection = collectionOf(config.target, run, row);
    return run.session.deleteWhere(collection, resolveFilter(config.filter, run, row), config.target.bypassRipple);
  },
});

/**
 * DeleteById: moves the record `record_id` to the trash. A missing record
 * fails the step (404). The working records become the deleted record as
 * stored before the delete.
 */
export const deleteById = step<{ readonly target: WriteTarget; readonly recordId: Template }>({
  type: 'DeleteById',
  access: 'write',
  compile: (members) => ({ target: compileTarget(members), recordId: members.template('record_id') }),
  run: (config, rows, run) => {
    const row = rows[0];
    const id = run.text(config.recordId, row, 'record_id');
    return run.session.deleteAll(collectionOf(config.target, run, row), [id], config.target.bypassRipple);
  },
});

/**
 * BatchDelete: moves the listed records to the trash, all or none (a
 * missing one fails the step with a 404 naming it; a record listed twice is
 * deleted once). The working records become the deleted records as they
 * were.
 *
 * Members: `collection`, `record_ids` (TypeScript; Go and Rust spell it
 * `ids`): an array of ids or primary-key-alias values, or a template that
 * resolves to one; at most `max_batch_size` of them; `bypass_ripple?`.
 *
 * The Rust client sends no `collection`. Its ids then belong to the
 * collection of the step written last before this one (in the definition's
 * text, e.g. the Query that found them); with no such step the definition
 * is refused at save. Since a missing id fails the whole step, ids from
 * another collection delete nothing.
 */
export const batchDelete = step<{
  readonly collection: Template;
  readonly ids: Template;
  readonly bypassRipple: boolean;
}>({
  type: 'BatchDelete',
  access: 'write',
  compile: (members) => {
    const collection = members.has('collection')
      ? members.template('collection')
      : (members.precedingCollection() ??
        members.fail("missing required member 'collection' (no earlier step names one the ids could belong to)"));
    const ids = members.template(['record_ids', 'ids']);
    if (isConstant(ids) && !isIdList(ids.value)) {
      const member = members.has('ids') && !members.has('record_ids') ? 'ids' : 'record_ids';
      members.fail('must be an array of record ids (strings), a Parameter reference or a placeholder', member);
    }
    return { collection, ids, bypassRipple: members.optionalBoolean('bypass_ripple') ?? false };
  },
  run: (config, rows, run) => {
    const row = rows[0];
    const ids = run.resolve(config.ids, row);
    if (!isIdList(ids)) throw new InvalidInput("'record_ids' must resolve to an array of record ids (strings)");
    checkLimit(ids.length, run.settings().max_batch_size, 'record_ids', 'ids');
    return run.session.deleteAll(run.text(config.collection, row, 'collection'), ids, config.bypassRipple);
  },
});

function isIdList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((id) => typeof id === 'string');
}
