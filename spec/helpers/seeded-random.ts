/**
 * Seeded pseudo-random numbers for specs (never Math.random), so a failing
 * run can be repeated: mulberry32 for uniforms, Box-Muller for normals, and
 * vectors of normal components for the vector specs. The benchmarks use
 * these generators too (bench/lib/seeded-random.ts re-exports them); specs
 * never import from bench/.
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

/** `count` vectors of standard normal components, the same for the same seed. */
export function randomVectors(count: number, dimensions: number, seed: number): number[][] {
  const normal = gaussian(mulberry32(seed));
  return Array.from({ length: count }, () => Array.from({ length: dimensions }, normal));
}

/** `count` records of up to `keys.length` fields, each a name from `keys` and a value from `values`, from `seed`. */
export function randomRecords<V>(
  seed: number,
  keys: readonly string[],
  values: readonly V[],
  count: number,
): Array<Record<string, V>> {
  const rnd = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  return Array.from({ length: count }, () => {
    const fields: Record<string, V> = {};
    const n = Math.floor(rnd() * keys.length);
    for (let k = 0; k < n; k++) fields[pick(keys)] = pick(values);
    return fields;
  });
}
