/**
 * Per-call milliseconds of `fn` over `inputs`, after `warmup` untimed calls.
 * A call that returns a promise is timed until it settles (runSearch is
 * async: a text search may wait for its index); a synchronous one is timed
 * as it is, with no turn of the microtask queue inside the measurement.
 */
export async function timeEach<T>(inputs: readonly T[], fn: (x: T) => unknown, warmup = 5): Promise<number[]> {
  for (const x of inputs.slice(0, warmup)) await fn(x);
  const times: number[] = [];
  for (const x of inputs) {
    const t0 = performance.now();
    const r = fn(x);
    if (r instanceof Promise) await r;
    times.push(performance.now() - t0);
  }
  return times;
}
