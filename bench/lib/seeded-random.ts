/**
 * Seeded pseudo-random numbers for benchmark data (never Math.random), so
 * every run measures the same records: mulberry32 for uniforms, Box-Muller
 * for normals, and a Zipf sampler for word frequencies.
 */

/** A uniform generator in [0, 1) from a 32-bit seed (mulberry32). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard-normal generator (Box-Muller) over a uniform one. */
export function gaussian(uniform: () => number): () => number {
  return () => {
    const u = 1 - uniform(); // (0, 1], so log is finite
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
}

/** Ranks 0..n-1 drawn with probability proportional to 1 / (rank + 1)^s. */
export function zipf(n: number, s: number, uniform: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) cdf[r] = sum += 1 / Math.pow(r + 1, s);
  return () => {
    const x = uniform() * sum;
    let lo = 0, hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < x) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
}
