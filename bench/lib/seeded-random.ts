/**
 * Seeded pseudo-random numbers for benchmark data (never Math.random), so
 * every run measures the same records: mulberry32 for uniforms, Box-Muller
 * for normals (shared with the specs, spec/helpers/seeded-random.ts, which
 * must not import from bench/), and a Zipf sampler for word frequencies.
 */
export { gaussian, mulberry32 } from '../../spec/helpers/seeded-random.js';

/** Ranks 0..n-1 drawn with probability proportional to 1 / (rank + 1)^s. */
export function zipf(n: number, s: number, uniform: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) cdf[r] = sum += 1 / Math.pow(r + 1, s);
  return () => {
    const x = uniform() * sum;
    let lo = 0,
      hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Synthetic words: consonant-vowel syllables, unique, seeded. */
export function vocabulary(size: number, u: () => number): string[] {
  const C = 'bdfgklmnprstvz',
    V = 'aeiou';
  const words = new Set<string>();
  while (words.size < size) {
    let w = '';
    for (let s = 2 + Math.floor(u() * 3); s > 0; s--)
      w += C[Math.floor(u() * C.length)]! + V[Math.floor(u() * V.length)]!;
    words.add(w);
  }
  return [...words];
}
