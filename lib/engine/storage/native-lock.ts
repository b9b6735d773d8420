/**
 * The optional native addon lib/engine/storage/native-lock.cc (built by
 * `npm install` into build/Release/eddydb_lock.node): flock(2), which
 * JavaScript cannot call, found and loaded by lib/vector's built-addon.ts.
 * Without the addon (no compiler at install, Windows, a packed copy without
 * the build) lock.ts falls back to a socket or the pid.
 */
import { loadBuiltAddon } from '../../vector/index.js';

export interface NativeLock {
  /**
   * A descriptor of `file` (created 0600 when missing, close-on-exec) that
   * holds an exclusive flock, or -1 when another open file holds it. Throws
   * an errno error for anything else. Closing the descriptor releases it.
   */
  lockFile(file: string): number;
}

let loaded: NativeLock | { unavailable: string } | undefined;

/** The addon, or why it is not there; loaded once per process. */
export function nativeLock(): NativeLock | { unavailable: string } {
  loaded ??= load();
  return loaded;
}

function load(): NativeLock | { unavailable: string } {
  return loadBuiltAddon<NativeLock>('eddydb_lock.node', (addon) =>
    typeof addon.lockFile === 'function' ? undefined : 'has no flock on this platform',
  );
}
