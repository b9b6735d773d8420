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
