/**
 * Bulk writes: many records in one durable unit.
 *
 * Items are processed in chunks. An item that fails (validation, missing
 * record, duplicate id) is reported alone while the rest go on; a chunk that
 * fails unexpectedly is dropped whole and reported as one entry with a null
 * id naming the chunk. Everything that succeeded is logged as ONE batch, so
 * after a crash the request's writes are all present or all absent.
 *
 * A large request does not hold the event loop: the writer operation makes
 * the items ready and stages them chunk by chunk, yielding between chunks
 * (Slicer). It keeps the writer meanwhile, so no other write runs inside
 * the unit, and nothing is visible to readers until the whole batch is
 * durable and applied at once. Each chunk's items are let go once it is
 * staged: the bodies of a 10,000-record request then live only until their
 * chunk is, and the collector does not copy them with the records it keeps.
 */
import { DbError, toDbError } from '../../errors.js';
import type { EngineCore } from '../core.js';
import { withNoRipple, type Effect } from '../write/effects.js';
import { validateId } from './ids.js';
import { validateCollectionName } from '../collections/names.js';
import type { PreparedWrite, Records } from './records.js';
import { isPlainObject, type Fields } from '../values/index.js';
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

/** An item other than a plain insert, ready to be applied. */
type Prepared =
  | { kind: 'insert'; p: PreparedWrite }
  | { kind: 'update'; id: string; p: PreparedWrite }
  | { kind: 'delete'; id: string };

/**
 * A chunk's items made ready, by their place in the chunk: the record made for
 * a plain insert, the Prepared form of any other item, or the error that
 * failed it. Lists of BULK_CHUNK slots, used for every chunk of a request.
 */
class ReadyChunk {
  readonly made = new Array<Fields | undefined>(BULK_CHUNK).fill(undefined);
  readonly prepared = new Array<Prepared | undefined>(BULK_CHUNK).fill(undefined);
  readonly failure = new Array<DbError | undefined>(BULK_CHUNK).fill(undefined);

  clear(): void {
    this.made.fill(undefined);
    this.prepared.fill(undefined);
    this.failure.fill(undefined);
  }
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

  /**
   * Runs a bulk request. Resolves once the successful part is durable. `items` is taken over: each slot is emptied
   * once its chunk is staged, so the caller must not read the items after.
   */
  async run(collection: string, items: BulkItem[]): Promise<BulkResult> {
    validateCollectionName(collection);
    // The request's body was decoded in the tick that got here: start on the items in a fresh one.
    await yieldToLoop();
    return this.db.write(async (view) => {
      const effects: Effect[] = [];
      const successful: string[] = [];
      const failed: BulkFailure[] = [];
      const slicer = new Slicer();
      const ready = new ReadyChunk();
      // Items stage into `work`, a fork of the group's view, which the writer then adopts (WorkingView.adopt).
      let work = view.fork();
      for (let start = 0; start < items.length; start += BULK_CHUNK) {
        const end = Math.min(start + BULK_CHUNK, items.length);
        const chunkError = this.runChunk(work, collection, items, ready, start, end, { effects, successful, failed });
        // Staged items are let go: the collector then copies only the items still to come, not the whole request.
        (items as Array<BulkItem | undefined>).fill(undefined, start, end);
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
   * Makes items `start` to `end` ready, then stages them into `work`, adding
   * their effects and ids to `out` and their errors to `out.failed`.
   * Anything unexpected fails the chunk: its message is returned, `out` is as
   * before the chunk, and `work` is left to be rebuilt.
   *
   * The chunk's records are all made before any is staged, so they lie
   * together in the heap, apart from the effects and staged entries that die
   * once the batch is applied; made and staged item by item, those left
   * holes among the kept records (at 1,000,000 records, 5-7% more memory).
   */
  private runChunk(
    work: WorkingView,
    collection: string,
    items: readonly BulkItem[],
    ready: ReadyChunk,
    start: number,
    end: number,
    out: { effects: Effect[]; successful: string[]; failed: BulkFailure[] },
  ): string | undefined {
    for (let index = start; index < end; index++) this.makeReady(collection, items[index]!, ready, index - start);
    const { effects, successful } = out;
    const effectsBefore = effects.length;
    const successfulBefore = successful.length;
    const itemFailures: BulkFailure[] = [];
    try {
      for (let index = start; index < end; index++) {
        const item = items[index]!;
        const at = index - start;
        const failure = ready.failure[at];
        if (failure) {
          itemFailures.push({ index, id: namedId(item), error: failure.message });
          continue;
        }
        // Each item's effects go straight onto the request's list, from `from` on (a list per item, emptied for
        // the next, would get a new backing store for each).
        const from = effects.length;
        try {
          const made = ready.made[at];
          successful.push(
            made !== undefined && item.kind === 'insert'
              ? this.records.insertMade(work, collection, made, item.body, effects)
              : this.apply(work, collection, ready.prepared[at]!, effects),
          );
        } catch (err) {
          if (!(err instanceof DbError)) throw err;
          effects.length = from;
          itemFailures.push({ index, id: failedId(item, ready.prepared[at]), error: err.message });
          continue;
        }
        if (item.bypassRipple) for (let i = from; i < effects.length; i++) effects[i] = withNoRipple(effects[i]!);
        work.stage(effects, from);
      }
    } catch (err) {
      effects.length = effectsBefore;
      successful.length = successfulBefore;
      return (err as Error).message;
    } finally {
      ready.clear();
    }
    out.failed.push(...itemFailures);
    return undefined;
  }

  /**
   * Makes `item` ready in slot `at` of `ready`: a plain insert, the common
   * item, into its record with a new id (Records.makeNew); any other item into
   * its Prepared form. Whatever that throws fails the item alone.
   */
  private makeReady(collection: string, item: BulkItem, ready: ReadyChunk, at: number): void {
    try {
      const made = item.kind === 'insert' ? this.records.makeNew(collection, item.body) : undefined;
      if (made !== undefined) ready.made[at] = made;
      else ready.prepared[at] = this.prepare(item);
    } catch (err) {
      ready.failure[at] = toDbError(err);
    }
  }

  private apply(view: WorkingView, collection: string, item: Prepared, effects: Effect[]): string {
    switch (item.kind) {
      case 'insert':
        return this.records.insertInto(view, collection, item.p, effects);
      case 'update':
        this.records.updateIn(view, collection, item.id, item.p, effects);
        return item.id;
      case 'delete':
        this.records.deleteIn(view, collection, item.id, effects);
        return item.id;
    }
  }

  private prepare(item: BulkItem): Prepared {
    switch (item.kind) {
      case 'insert':
        return { kind: 'insert', p: this.records.prepare(item.body) };
      case 'update':
        return { kind: 'update', id: validateId(item.id), p: this.records.prepare(item.body) };
      case 'delete':
        return { kind: 'delete', id: validateId(item.id) };
    }
  }
}

/** The id a failed item is reported under: the one it named (as its Prepared form read it), never one made for it. */
function failedId(item: BulkItem, prepared: Prepared | undefined): string | null {
  if (!prepared) return namedId(item);
  return prepared.kind === 'insert' ? (prepared.p.id ?? null) : prepared.id;
}

/** The id an item names, when it names one as a string. */
export function namedId(item: BulkItem): string | null {
  const id = item.kind === 'insert' ? (isPlainObject(item.body) ? item.body.id : undefined) : item.id;
  return typeof id === 'string' ? id : null;
}
