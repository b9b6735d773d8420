/**
 * Bulk writes: many records in one durable unit.
 *
 * Items are processed in chunks. An item that fails (validation, missing
 * record, duplicate id) is reported alone while the rest go on; a chunk that
 * fails unexpectedly is dropped whole and reported as one entry with a null
 * id naming the chunk. Everything that succeeded is logged as ONE batch, so
 * after a crash the request's writes are all present or all absent.
 *
 * A large request does not hold the event loop: items are parsed (and new
 * ids made) before the writer is asked, in slices, and the writer operation
 * yields between chunks (Slicer). It keeps the writer meanwhile, so no other
 * write runs inside the unit, and nothing is visible to readers until the
 * whole batch is durable and applied at once.
 */
import { DbError, toDbError } from '../../errors.js';
import type { EngineCore } from '../core.js';
import { withNoRipple, type Effect } from '../write/effects.js';
import { validateId } from './ids.js';
import { validateCollectionName } from '../collections/names.js';
import type { PreparedWrite, Records } from './records.js';
import type { Fields } from '../values/index.js';
import type { WorkingView } from '../write/working-view.js';
import { Slicer, yieldToLoop } from '../time/slices.js';

export const BULK_CHUNK = 1000;

export interface BulkFailure {
  readonly index?: number;
  readonly id: string | null;
  readonly error: string;
}

export interface BulkResult {
  readonly successful: string[];
  readonly failed: BulkFailure[];
}

/** One item of a bulk request, already parsed from the wire. */
export type BulkItem =
  | { readonly kind: 'insert'; readonly body: unknown; readonly bypassRipple?: boolean }
  | { readonly kind: 'update'; readonly id: unknown; readonly body: unknown; readonly bypassRipple?: boolean }
  | { readonly kind: 'delete'; readonly id: unknown; readonly bypassRipple?: boolean };

/**
 * An item ready for the writer, other than a plain insert (whose ready form
 * is the record Records.makeNew made for it, with its new id).
 */
type Prepared =
  | { kind: 'insert'; p: PreparedWrite; freshId?: string }
  | { kind: 'update'; id: string; p: PreparedWrite }
  | { kind: 'delete'; id: string };

/**
 * The items of a request made ready, by their place in it: for each, the
 * record made ahead or its Prepared form (neither when it failed). A plain
 * insert, the common item, costs no object beside its record.
 */
interface ReadyItems {
  readonly made: Array<Fields | undefined>;
  readonly prepared: Array<Prepared | undefined>;
}

export class Bulk {
  constructor(
    private readonly db: EngineCore,
    private readonly records: Records,
  ) {}

  /** Inserts every valid body as one logged batch; invalid ones are reported in `failed`. */
  insertMany(collection: string, bodies: readonly unknown[]): Promise<BulkResult> {
    return this.run(
      collection,
      bodies.map((body) => ({ kind: 'insert' as const, body })),
    );
  }

  /** Runs a bulk request. Resolves once the successful part is durable. */
  async run(collection: string, items: readonly BulkItem[]): Promise<BulkResult> {
    validateCollectionName(collection);
    const failed: BulkFailure[] = [];
    // Sized at once: grown push by push, each list would be copied a dozen times on the way to 10,000 items.
    const ready: ReadyItems = { made: new Array(items.length), prepared: new Array(items.length) };
    // The request's body was decoded in the tick that got here: parse the items in a fresh one.
    await yieldToLoop();
    const slicer = new Slicer();
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      let made: Fields | undefined;
      let prepared: Prepared | undefined;
      try {
        // A new id is made here, outside the writer (one the alias replaces is simply not used).
        made = item.kind === 'insert' ? this.records.makeNew(collection, item.body) : undefined;
        if (made === undefined) prepared = this.prepare(item);
      } catch (err) {
        failed.push({ index, id: rawId(item), error: toDbError(err).message });
      }
      ready.made[index] = made;
      ready.prepared[index] = prepared;
      if (slicer.counted()) await slicer.pause();
    }
    return this.db.write(async (view) => {
      const effects: Effect[] = [];
      const successful: string[] = [];
      // Items stage into `work`, a fork of the group's view, which the writer then adopts (WorkingView.adopt).
      let work = view.fork();
      for (let start = 0; start < items.length; start += BULK_CHUNK) {
        const end = Math.min(start + BULK_CHUNK, items.length);
        const chunkError = this.runChunk(work, collection, items, ready, start, end, { effects, successful, failed });
        // Staged items are let go: the collector then copies only the items still to come, not the whole request.
        ready.prepared.fill(undefined, start, end);
        if (chunkError !== undefined) {
          failed.push({
            id: null,
            error: `Chunk ${start / BULK_CHUNK + 1} (items ${start + 1}-${end}) failed: ${chunkError}`,
          });
          // The failed chunk may have staged part of itself: start again from the chunks that succeeded (rare: a bug).
          work = view.fork();
          work.stage(effects);
        }
        await slicer.pause();
      }
      failed.sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity));
      // `work` holds exactly `effects` staged over the view: the writer takes it over.
      return { effects, result: { successful, failed }, staged: work };
    });
  }

  /**
   * Stages items `start` to `end` into `work`, adding their effects and ids
   * to `out` and their errors to `out.failed`. Anything unexpected fails the
   * chunk: its message is returned, `out` is as before the chunk, and `work`
   * is left to be rebuilt.
   */
  private runChunk(
    work: WorkingView,
    collection: string,
    items: readonly BulkItem[],
    ready: ReadyItems,
    start: number,
    end: number,
    out: { effects: Effect[]; successful: string[]; failed: BulkFailure[] },
  ): string | undefined {
    const { effects, successful } = out;
    const effectsBefore = effects.length;
    const successfulBefore = successful.length;
    const itemFailures: BulkFailure[] = [];
    try {
      for (let index = start; index < end; index++) {
        const item = items[index]!;
        const made = ready.made[index];
        const prepared = ready.prepared[index];
        if (made === undefined && prepared === undefined) continue; // failed in preparation
        // Each item's effects go straight onto the request's list, from `from` on (a list per item, emptied for
        // the next, would get a new backing store for each).
        const from = effects.length;
        try {
          successful.push(
            made !== undefined && item.kind === 'insert'
              ? this.records.insertMade(work, collection, made, item.body, effects)
              : this.apply(work, collection, prepared!, effects),
          );
        } catch (err) {
          if (!(err instanceof DbError)) throw err;
          effects.length = from;
          itemFailures.push({ index, id: prepared ? failedId(prepared) : null, error: err.message });
          continue;
        }
        if (item.bypassRipple) for (let i = from; i < effects.length; i++) effects[i] = withNoRipple(effects[i]!);
        work.stage(effects, from);
      }
    } catch (err) {
      effects.length = effectsBefore;
      successful.length = successfulBefore;
      return (err as Error).message;
    }
    out.failed.push(...itemFailures);
    return undefined;
  }

  private apply(view: WorkingView, collection: string, item: Prepared, effects: Effect[]): string {
    switch (item.kind) {
      case 'insert':
        return this.records.insertInto(view, collection, item.p, effects, item.freshId);
      case 'update':
        this.records.updateIn(view, collection, item.id, item.p, effects);
        return item.id;
      case 'delete':
        this.records.deleteIn(view, collection, item.id, effects);
        return item.id;
    }
  }

  /** An item other than a plain insert made ready for the writer. */
  private prepare(item: BulkItem): Prepared {
    switch (item.kind) {
      case 'insert': {
        const prepared = this.records.prepare(item.body);
        return prepared.id === undefined
          ? { kind: 'insert', p: prepared, freshId: this.db.ids.next() }
          : { kind: 'insert', p: prepared };
      }
      case 'update':
        return { kind: 'update', id: validateId(item.id), p: this.records.prepare(item.body) };
      case 'delete':
        return { kind: 'delete', id: validateId(item.id) };
    }
  }
}

/** The id a failed item is reported under: the one it named, never one made for it. */
function failedId(item: Prepared): string | null {
  return item.kind === 'insert' ? (item.p.id ?? null) : item.id;
}

function rawId(item: BulkItem): string | null {
  if (item.kind !== 'insert') return typeof item.id === 'string' ? item.id : null;
  const id = item.body !== null && typeof item.body === 'object' ? (item.body as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : null;
}
