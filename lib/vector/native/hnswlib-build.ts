/**
 * Which build of hnswlib the HNSW graphs run on. hnswlib chooses its
 * distance kernels when it is compiled (hnswlib.h tests __AVX__ and
 * __AVX512F__), and hnswlib-node's own build has SSE only. On x64 Linux
 * `npm install` compiles the same source twice more, with AVX2 and with
 * AVX-512 (binding.gyp here, bin/build-native.js), into build/Release.
 *
 * The best build this CPU runs is loaded: /proc/cpuinfo lists the
 * extensions the CPU has and its kernel enabled. A compiler given these
 * flags may use them anywhere, so a build is never loaded on a CPU without
 * them (it would die on an illegal instruction). Measured on 50,000 x 384
 * (bench vector-search-http): AVX-512 builds a graph about 12% and answers
 * a search about 20% faster than the package's build. The graphs are the
 * same algorithm and file format whichever build made them.
 *
 * Those two builds also insert a run of vectors from several threads at
 * once (hnswlib-parallel.cc, `addPointsParallel`), and answer a search by
 * a scan of quantized vectors (`searchQuantized`); the package's build inserts one
 * at a time and has no such scan.
 *
 * EDDYDB_HNSWLIB_BUILD=package keeps the package's build (to compare, or
 * on a machine whose cpuinfo misleads); `auto`, the default, takes the
 * best; any other value is warned about and taken as `auto`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import type * as HnswlibNode from 'hnswlib-node';
import { builtAddonFile } from './built-addon.js';
import type { RowsView } from '../quantized/rows.js';

export type Hnswlib = typeof HnswlibNode;

/** The builds npm install makes, best first, with the CPU flags (as /proc/cpuinfo spells them) each needs. */
export const HNSWLIB_BUILDS = [
  { name: 'avx512', file: 'hnswlib_avx512.node', needs: ['avx2', 'fma', 'avx512f', 'avx512bw'] },
  { name: 'avx2', file: 'hnswlib_avx2.node', needs: ['avx2', 'fma'] },
] as const;

export type HnswlibBuildName = (typeof HNSWLIB_BUILDS)[number]['name'] | 'package';

/** The CPU flags /proc/cpuinfo lists for the first processor; empty where there is no such file. */
export function cpuFlags(cpuinfo = '/proc/cpuinfo'): Set<string> {
  try {
    const line = /^flags\s*:(.*)$/m.exec(readFileSync(cpuinfo, 'latin1'));
    return new Set(line ? line[1]!.trim().split(/\s+/) : []);
  } catch {
    return new Set();
  }
}

/** What EDDYDB_HNSWLIB_BUILD may say: `auto` (or nothing) for the best build, `package` for the package's. */
export const HNSWLIB_BUILD_SETTINGS = ['auto', 'package'] as const;

/**
 * The build to load: the best of HNSWLIB_BUILDS whose flags the CPU has and whose file `locate` finds (its path),
 * else the package's. `setting` is EDDYDB_HNSWLIB_BUILD; `ignored` says when it is none of HNSWLIB_BUILD_SETTINGS.
 */
export function chooseHnswlibBuild(
  flags: ReadonlySet<string>,
  locate: (file: string) => string | undefined,
  setting: string | undefined,
): { name: HnswlibBuildName; path?: string; ignored?: string } {
  if (setting === 'package') return { name: 'package' };
  const ignored =
    setting && !(HNSWLIB_BUILD_SETTINGS as readonly string[]).includes(setting)
      ? `EDDYDB_HNSWLIB_BUILD=${setting} is neither auto nor package: the best build this CPU runs is used`
      : undefined;
  for (const { name, file, needs } of HNSWLIB_BUILDS) {
    if (!needs.every((flag) => flags.has(flag))) continue;
    const found = locate(file);
    if (found !== undefined) return { name, path: found, ...(ignored && { ignored }) };
  }
  return { name: 'package', ...(ignored && { ignored }) };
}

function load(): { hnswlib: Hnswlib; build: HnswlibBuildName } {
  const require = createRequire(import.meta.url);
  const chosen = chooseHnswlibBuild(cpuFlags(), (file) => builtAddonFile(file), process.env.EDDYDB_HNSWLIB_BUILD);
  // Once a process: the HNSW worker loads this module too.
  if (chosen.ignored && isMainThread) process.emitWarning(chosen.ignored);
  if (chosen.path !== undefined) {
    try {
      return { hnswlib: require(chosen.path) as Hnswlib, build: chosen.name };
    } catch {
      // A build that does not load (another node's ABI left in build/Release, the other build made with it
      // alike) leaves the package's.
    }
  }
  return { hnswlib: require('hnswlib-node') as Hnswlib, build: 'package' };
}

const loaded = load();
/** The functions hnswlib-parallel.cc adds to the AVX2 and AVX-512 builds; absent from the package's. */
const ownFunctions = loaded.hnswlib as Hnswlib & {
  addPointsParallel?: AddPointsParallel;
  searchQuantized?: SearchQuantized;
};

/** hnswlib-node's classes, from the build this process runs. */
export const hnswlib: Hnswlib = loaded.hnswlib;

/**
 * Inserts a run of vectors into a graph from several threads at once (hnswlib-parallel.cc, in the AVX2 and AVX-512
 * builds; the package's build has none): `vectors` holds `labels.length` rows, each inserted under its label into a
 * fresh slot. The graph must have room for all of them. Answers null, or the first failed insert's error, each
 * failed insert marked 1 in `failed`.
 */
export type AddPointsParallel = (
  index: InstanceType<Hnswlib['HierarchicalNSW']>,
  vectors: Float32Array,
  labels: Uint32Array,
  threads: number,
  failed: Uint8Array,
) => string | null;

/** The build's parallel insert, where it has one. */
export const addPointsParallel: AddPointsParallel | undefined = ownFunctions.addPointsParallel;
/**
 * A search by a scan of quantized rows (hnswlib-parallel.cc, in the AVX2 and AVX-512 builds; quantized/rows.ts
 * keeps them, `rows` is its view()): the best `shortlist` rows by their sign bits (every row under 1), the best
 * `candidates` of those by their 4-bit codes, and these re-ranked exactly; writes the nearest labels and hnswlib's
 * distances to them, nearest first, and answers how many it wrote (at most `outLabels.length`). With `allowed` (a
 * byte per row, from QuantizedRows.allowing), only rows whose byte is not 0 are candidates.
 */
export type SearchQuantized = (
  index: InstanceType<Hnswlib['HierarchicalNSW']>,
  rows: RowsView,
  query: Float32Array,
  shortlist: number,
  candidates: number,
  outLabels: Uint32Array,
  outDistances: Float32Array,
  allowed?: Uint8Array,
) => number;

/** The build's quantized scan, where it has one. */
export const searchQuantized: SearchQuantized | undefined = ownFunctions.searchQuantized;
/** Which build that is: `avx512`, `avx2`, or `package` (hnswlib-node's own, SSE). */
export const hnswlibBuild: HnswlibBuildName = loaded.build;
