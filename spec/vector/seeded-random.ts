/**
 * Seeded pseudo-random data for the vector specs (never Math.random). The
 * generators themselves are shared with the benchmarks.
 */
import { mulberry32, gaussian } from '../../bench/lib/seeded-random.js';

export { mulberry32, gaussian };

/** `count` vectors of standard normal components, the same for the same seed. */
export function randomVectors(count: number, dimensions: number, seed: number): number[][] {
  const normal = gaussian(mulberry32(seed));
  return Array.from({ length: count }, () => Array.from({ length: dimensions }, normal));
}
