/**
 * The optional native addon (lib/cli/native-memory.cc, built by `npm install`
 * into build/Release): what V8 and glibc can do for resident memory that
 * JavaScript cannot ask for. Without it (no compiler at install, another C
 * library, a packed copy without the build) the server runs the same and
 * only idle compaction (lib/cli/idle-compaction.ts) is off.
 */
import { loadAddon } from '../http/index.js';

export interface NativeMemory {
  /** Starts V8's memory-reducing major collection (incremental marking, then compaction); returns at once. */
  reduceHeap(): void;
  /** Returns free pages inside malloc's arenas to the OS; true when some were released. */
  trimMalloc(): boolean;
}

/** The addon, or why it is not there; `roots` are where a package root may be (specs pass others). */
export function loadNativeMemory(roots?: readonly string[]): NativeMemory | { unavailable: string } {
  return loadAddon<NativeMemory>('eddydb_memory.node', ['reduceHeap', 'trimMalloc'], roots);
}
