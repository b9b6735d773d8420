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
  /**
   * Has malloc serve blocks up to `mmapBytes` from its heap and keep up to
   * `trimBytes` free at its top, instead of mapping and unmapping them; true
   * when it took both (glibc only).
   */
  keepFreedMemory(mmapBytes: number, trimBytes: number): boolean;
}

/** The addon, or why it is not there; `roots` are where a package root may be (specs pass others). */
export function loadNativeMemory(roots?: readonly string[]): NativeMemory | { unavailable: string } {
  return loadAddon<NativeMemory>('eddydb_memory.node', ['reduceHeap', 'trimMalloc', 'keepFreedMemory'], roots);
}

/**
 * Freed blocks up to this size stay in malloc's heap for the next one, and
 * up to KEEP_FREE_BYTES of free memory stay at its top. A large request
 * body, a log frame of a 10,000-record batch (3 MB) or a snapshot frame
 * would otherwise get a fresh mapping each time, every page of it faulted in
 * on first write: on a virtual machine about 800 faults, 4-7 ms, per
 * batch's log frame. Idle compaction gives the free memory back once the
 * burst is over (malloc_trim). 32 MiB is the most glibc takes.
 */
const KEEP_BLOCKS_BYTES = 32 * 2 ** 20;
const KEEP_FREE_BYTES = 64 * 2 ** 20;

/** Lets malloc keep freed blocks for reuse (see KEEP_BLOCKS_BYTES); false without the addon or on another libc. */
export function keepFreedMemory(native: NativeMemory | { unavailable: string }): boolean {
  return !('unavailable' in native) && native.keepFreedMemory(KEEP_BLOCKS_BYTES, KEEP_FREE_BYTES);
}
