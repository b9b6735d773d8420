/**
 * The optional native addon (lib/cli/native-memory.cc, built by `npm install`
 * into build/Release): what V8 and glibc can do for resident memory that
 * JavaScript cannot ask for. Without it (no compiler at install, another C
 * library, a packed copy without the build) the server runs as before and
 * only idle compaction (lib/cli/idle-compaction.ts) is off.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface NativeMemory {
  /** Starts V8's memory-reducing major collection (incremental marking, then compaction); returns at once. */
  reduceHeap(): void;
  /** Returns free pages inside malloc's arenas to the OS; true when some were released. */
  trimMalloc(): boolean;
}

const ADDON = path.join('build', 'Release', 'eddydb_memory.node');

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The package root seen from lib/cli (tsx) and from dist/lib/cli (built). */
const ROOTS = [path.resolve(HERE, '..', '..'), path.resolve(HERE, '..', '..', '..')];

/** The addon, or why it is not there; `roots` are where a package root may be (specs pass others). */
export function loadNativeMemory(roots: readonly string[] = ROOTS): NativeMemory | { unavailable: string } {
  const file = roots.map((r) => path.join(r, ADDON)).find((p) => existsSync(p));
  if (file === undefined) return { unavailable: `${ADDON} was not built (npm install builds it with node-gyp)` };
  try {
    const addon = createRequire(import.meta.url)(file) as Partial<NativeMemory>;
    if (typeof addon.reduceHeap !== 'function' || typeof addon.trimMalloc !== 'function') return { unavailable: `${file} is not this version's addon` };
    return addon as NativeMemory;
  } catch (err) {
    return { unavailable: `${file} did not load: ${(err as Error).message}` };
  }
}
