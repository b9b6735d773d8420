/**
 * Statements over many records: filtered update, actions and delete, upsert,
 * and all-or-nothing inserts and deletes of lists (stored-function write
 * steps run them through the auto-commit session).
 *
 * Each statement is ONE operation of the single writer, so it is atomic on
 * its own: the records are matched against the writer's WorkingView, each
 * change is computed and staged into a fork of it so the next one sees it
 * (unique checks, ids, aliases), and the whole set is logged as one batch.
 * When any record fails (a schema violation, a missing id) the operation
 * throws and nothing is logged. A filter on an indexed field is matched
 * through the query index, as `find` is, so the writer does not scan the
 * collection. Inside a transaction the transaction session
 * stages one operation per record instead (transaction-session.ts).
 */
import { MESSAGES, NotFound } from '../../errors.js';
import type { EngineCore } from '../core.js';
import { markNoRipple, type Effect } from '../write/effects.js';
import { validateCollectionName } from '../collections/names.js';
import { matcherOf, SCAN_CHECK_EVERY, type Filter } from '../query/index.js';
import { Slicer } from '../time/slices.js';
import type { IndexManager } from '../indexes/index-manager.js';
import type { PreparedWrite, Records } from './records.js';
import { resolveRecordId } from './aliases.js';
import type { RecordEntry } from '../write/state.js';
import { isExpired } from '../time/ttl.js';
import type { ActionStep } from './update-actions.js';
import type { Fields } from '../values/index.js';
import type { WorkingView } from '../write/working-view.js';

/** What an upsert writes to: one record by id (or primary-key-alias value), or every record matching a filter. */
export type UpsertTarget = { readonly id: string } | { readonly filter: Filter };

/** Changes computed between looks at the clock (each validates and builds a record). */
const CHANGE_CHECK_EVERY = 64;

/** One record's change inside a statement: pushes its effects, returns what the statement reports for it. */
type Change<T> = (work: WorkingView, target: T, effects: Effect[]) => Fields;

export class MultiWrites {
  /** `indexes` narrows a filter's candidates as `find` does (they index committed state, the view's base). */
  constructor(
    private readonly db: EngineCore,
    private readonly records: Records,
    private readonly indexes: IndexManager,
  ) {}

  /**
   * Merges the partial wire record `body` into every live record of `collection`
   * matching `filter` (every record when undefined; at most `limit`, in scan
   * order). Resolves to the new fields of each; [] when nothing matched.
   */
  async updateWhere(
    collection: string,
    filter: Filter | undefined,
    body: unknown,
    bypassRipple = false,
    limit?: number,
  ): Promise<Fields[]> {
    validateCollectionName(collection);
    const prepared = this.records.prepare(body);
    return this.statement(
      collection,
      bypassRipple,
      (view) => this.matching(view, collection, filter, limit),
      (work, id, effects) => this.records.updateIn(work, collection, id, prepared, effects),
    );
  }

  /** Applies update actions, in order, to every live record matching `filter`. Resolves to the new fields of each. */
  async actionsWhere(
    collection: string,
    filter: Filter | undefined,
    steps: readonly ActionStep[],
    bypassRipple = false,
    limit?: number,
  ): Promise<Fields[]> {
    validateCollectionName(collection);
    return this.statement(
      collection,
      bypassRipple,
      (view) => this.matching(view, collection, filter, limit),
      (work, id, effects) => this.records.actionsIn(work, collection, id, steps, effects),
    );
  }

  /** Deletes (into the trash) every live record matching `filter`. Resolves to the deleted records as they were. */
  async deleteWhere(collection: string, filter: Filter | undefined, bypassRipple = false): Promise<Fields[]> {
    validateCollectionName(collection);
    return this.statement(
      collection,
      bypassRipple,
      (view) => this.matching(view, collection, filter, undefined),
      (work, id, effects) => {
        const before = work.record(collection, id)!.fields;
        this.records.deleteIn(work, collection, id, effects);
        return before;
      },
    );
  }

  /** Inserts every wire record, or none when one fails. Resolves to the inserted records, in order. */
  async insertAll(collection: string, bodies: readonly unknown[], bypassRipple = false): Promise<Fields[]> {
    validateCollectionName(collection);
    const prepared = bodies.map((b) => this.records.prepare(b));
    return this.statement(
      collection,
      bypassRipple,
      () => prepared,
      (work, insert, effects) => {
        this.records.insertInto(work, collection, insert, effects);
        return lastPut(effects);
      },
    );
  }

  /**
   * Deletes every listed record (ids or primary-key-alias values; one named
   * twice is deleted once), or none when one is missing (NotFound naming it).
   * Resolves to the deleted records as they were.
   */
  async deleteAll(collection: string, idsOrAliases: readonly string[], bypassRipple = false): Promise<Fields[]> {
    validateCollectionName(collection);
    return this.statement(
      collection,
      bypassRipple,
      (view) => this.listed(view, collection, idsOrAliases),
      (work, id, effects) => {
        const before = work.record(collection, id)!.fields;
        this.records.deleteIn(work, collection, id, effects);
        return before;
      },
    );
  }

  /**
   * Updates the target when it exists (by id: that record; by filter: every
   * match), else inserts `body` (by id: under that id). Resolves to the
   * written records.
   */
  async upsert(collection: string, target: UpsertTarget, body: unknown, bypassRipple = false): Promise<Fields[]> {
    validateCollectionName(collection);
    const prepared = this.records.prepare(body);
    return this.db.write(async (view) => {
      const effects: Effect[] = [];
      const matched =
        'id' in target
          ? this.live(view, collection, resolveRecordId(view, collection, target.id, this.records.unique))
          : await this.matching(view, collection, target.filter, undefined);
      if (matched.length === 0) {
        const insert: PreparedWrite = 'id' in target ? { ...prepared, id: prepared.id ?? target.id } : prepared;
        this.records.insertInto(view, collection, insert, effects);
        return { effects: markNoRipple(effects, bypassRipple), result: [lastPut(effects)] };
      }
      const result = await this.changeEach(view.fork(), matched, effects, (work, id, own) =>
        this.records.updateIn(work, collection, id, prepared, own),
      );
      return { effects: markNoRipple(effects, bypassRipple), result };
    });
  }

  /**
   * Runs one writer operation: `targets` picked from the view, each changed
   * in turn over a fork, all logged as one batch. The operation holds the
   * writer while it yields the event loop between slices (nothing else is
   * computed or applied meanwhile, so the view stays as it is), so a
   * statement over a million records holds no read.
   */
  private statement<T>(
    collection: string,
    bypassRipple: boolean,
    targets: (view: WorkingView) => readonly T[] | Promise<readonly T[]>,
    change: Change<T>,
  ): Promise<Fields[]> {
    return this.db.write(async (view) => {
      const effects: Effect[] = [];
      const result = await this.changeEach(view.fork(), await targets(view), effects, change);
      return { effects: markNoRipple(effects, bypassRipple), result };
    });
  }

  /**
   * Stages each change into `work` before the next is computed, in slices; its effects join `effects`. Throws on the
   * first failure.
   */
  private async changeEach<T>(
    work: WorkingView,
    targets: readonly T[],
    effects: Effect[],
    change: Change<T>,
  ): Promise<Fields[]> {
    const out: Fields[] = [];
    const slicer = new Slicer(CHANGE_CHECK_EVERY);
    for (const target of targets) {
      const own: Effect[] = [];
      out.push(change(work, target, own));
      work.stage(own);
      for (const effect of own) effects.push(effect);
      if (slicer.counted()) await slicer.pause();
    }
    return out;
  }

  /** Ids of the live records of `collection` matching `filter`, in scan order, at most `limit`; in slices. */
  private async matching(
    view: WorkingView,
    collection: string,
    filter: Filter | undefined,
    limit: number | undefined,
  ): Promise<string[]> {
    const ids: string[] = [];
    if (limit === 0) return ids;
    const plan = filter && !view.droppedHere(collection) ? this.indexes.plan(collection, filter) : undefined;
    const now = this.db.now();
    const slicer = new Slicer(SCAN_CHECK_EVERY);
    const matches = filter && matcherOf(filter);
    for (const [id, entry] of plan ? this.candidates(view, collection, plan.ids) : view.records(collection)) {
      if (slicer.counted()) await slicer.pause();
      if (isExpired(entry, now) || (matches && !matches(entry.fields))) continue;
      ids.push(id);
      if (ids.length === limit) break;
    }
    return ids;
  }

  /**
   * The view's records among an index plan's ids, plus every record this
   * group already changed (the index only knows committed state), in the
   * order `find` returns them: committed insertion order, then new records.
   */
  private candidates(
    view: WorkingView,
    collection: string,
    planned: ReadonlySet<string>,
  ): Array<[string, RecordEntry]> {
    const ids = new Set(planned);
    for (const [id] of view.changedImages(collection)) ids.add(id);
    const committed = this.db.state.collections.get(collection)?.records;
    const out: Array<[string, RecordEntry, number]> = [];
    for (const id of ids) {
      const entry = view.record(collection, id);
      if (entry) out.push([id, entry, committed?.get(id)?.ord ?? Infinity]);
    }
    // A stable sort: records new in this group keep the order they were staged in.
    out.sort((a, b) => (a[2] === b[2] ? 0 : a[2] < b[2] ? -1 : 1));
    return out.map(([id, entry]) => [id, entry]);
  }

  /** [id] when the record is live in the view, else []. */
  private live(view: WorkingView, collection: string, id: string): string[] {
    const entry = view.record(collection, id);
    return entry && !isExpired(entry, this.db.now()) ? [id] : [];
  }

  /** The listed records' ids, each once; NotFound naming the first that is not live. */
  private listed(view: WorkingView, collection: string, idsOrAliases: readonly string[]): string[] {
    const ids = new Set<string>();
    for (const given of idsOrAliases) {
      const [id] = this.live(view, collection, resolveRecordId(view, collection, given, this.records.unique));
      if (id === undefined) throw new NotFound(`${MESSAGES.recordNotFound}: '${given}' in collection '${collection}'`);
      ids.add(id);
    }
    return [...ids];
  }
}

/** The fields of the last record an insert pushed. */
function lastPut(effects: readonly Effect[]): Fields {
  const last = effects.at(-1);
  if (last?.kind !== 'put') throw new Error('an insert ends with the put of its record');
  return last.fields;
}
