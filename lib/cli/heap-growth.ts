/**
 * How far V8 lets the old generation grow past what the last full
 * collection kept before it starts the next one, while the server serves:
 * to twice (as Go's default GOGC=100 does), instead of V8's own factor.
 *
 * V8 derives its factor from how fast it marks against how fast the program
 * allocates, and for a heap of large leaf objects, which mark fast (a
 * collection's vectors), it falls towards 1.1. A load of 50,000 x 384
 * uniform vectors into an HNSW index ran 55-58 full collections, one every
 * batch or two, with marking steps and final pauses of up to 20-28 ms on
 * the request thread; a search that met them took 46-59 ms, longer than an
 * exact scan of every vector. With the factor at two: 22-30 collections,
 * the worst search during the build 15-19 ms against an exact scan's
 * 48-50 ms, the pinned build 17.4 against 19.9 s (clustered) and 30.2
 * against 34.5 s (uniform). A million ~200-byte records take the same
 * memory (305 against 303-308 bytes a record, settled and right after the
 * load): idle compaction (idle-compaction.ts) and V8's reducer still
 * collect after a load.
 *
 * Set once the data is recovered, not before: recovering a million records
 * took 3.2-3.3 s with it against 2.9 s without. A `--heap-growing-percent`
 * on node's command line wins. (V8 reads the flag each time it sets its
 * next limit, so setting it in a running process takes effect at the next
 * collection.)
 */
import v8 from 'node:v8';

const HEAP_GROWING_PERCENT = 100;

/** Sets the old generation's growth for serving, unless node's command line set it. */
export function growHeapForServing(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
