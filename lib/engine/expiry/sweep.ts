/**
 * The shape every background sweep takes (expired records, expired
 * key-value entries, the trash past its retention): find what is due in
 * slices of the event loop, then remove it in chunks, each chunk one write
 * and so one durable unit in the log. A chunk is re-checked inside the
 * writer, where a write that came meanwhile (a record given a new TTL, a
 * restored record) is seen. Between chunks other requests run, so many
 * records expiring together never hold the event loop as one write.
 */
import type { EngineCore } from '../core.js';
import type { Effect } from '../write/effects.js';
import { Slicer } from '../time/slices.js';
import type { WorkingView } from '../write/working-view.js';

/** Effects in one sweep write: a few milliseconds of applying and notifying. */
export const SWEEP_CHUNK = 1_000;
/** Entries looked at between looks at the clock while finding what is due. */
const CHECK_EVERY = 1_024;

/** What `due` picks from `entries`, walked in slices. */
export async function collectDue<E, T>(entries: Iterable<E>, due: (entry: E) => T | undefined): Promise<T[]> {
  const out: T[] = [];
  const slicer = new Slicer(CHECK_EVERY);
  for (const item of entries) {
    const picked = due(item);
    if (picked !== undefined) out.push(picked);
    if (slicer.counted()) await slicer.pause();
  }
  return out;
}

/**
 * Removes `items` in chunks of SWEEP_CHUNK, one write each; `effectsOf`
 * re-checks a chunk against the writer's view and returns the effects to
 * log. `afterChunk` runs once a chunk is durable. Resolves to the number of
 * effects written.
 */
export async function writeInChunks<T>(
  core: EngineCore,
  items: readonly T[],
  effectsOf: (view: WorkingView, chunk: readonly T[]) => Effect[],
  afterChunk?: (chunk: readonly T[]) => void,
): Promise<number> {
  // A cluster's replica removes nothing itself: the primary's sweeps reach it through the cluster's log.
  if (core.replica) return 0;
  let written = 0;
  for (let i = 0; i < items.length; i += SWEEP_CHUNK) {
    const chunk = items.slice(i, i + SWEEP_CHUNK);
    written += await core.write((view) => {
      const effects = effectsOf(view, chunk);
      return { effects, result: effects.length };
    });
    afterChunk?.(chunk);
  }
  return written;
}
