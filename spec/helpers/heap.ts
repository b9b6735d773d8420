/**
 * Heap measurements for specs that check how much memory stored values
 * keep: the collector reached without a command-line flag, and heap bytes
 * per item kept.
 */
import { expect } from 'chai';
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
// A constant name, evaluated in a fresh context: the only way to reach the collector without a command-line flag.
export const gc = vm.runInNewContext('gc') as () => void;

/** Heap bytes per item kept by `build(i)` for n items, after a full collection before and after. */
export function heapPerRecord(n: number, build: (i: number) => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = Array.from({ length: n }, (_, i) => build(i));
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(kept).to.have.length(n);
  return (after - before) / n;
}

/**
 * Heap bytes per item that `more(i)` keeps beyond `less(i)`, for n items: each built once first, so that neither
 * measurement counts its builder's first compilation and maps, then the median of three interleaved rounds (one round
 * can catch the heap's own bookkeeping of a few hundred KB). `rounds` are the three differences, for a message.
 */
export function heapSavedPerRecord(
  n: number,
  more: (i: number) => unknown,
  less: (i: number) => unknown,
): { median: number; rounds: number[] } {
  more(0);
  less(0);
  const rounds = [0, 1, 2].map(() => heapPerRecord(n, more) - heapPerRecord(n, less));
  return { median: [...rounds].sort((a, b) => a - b)[1]!, rounds };
}
