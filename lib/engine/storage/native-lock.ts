/**
 * The optional native addon lib/engine/storage/native-lock.cc (built by
 * `npm install` into build/Release/eddydb_lock.node): flock(2), which
 * JavaScript cannot call. The engine loads it itself, because the data
 * directory's lock is the engine's and lib/http's addon loader sits above
 * the engine; this loader is the few lines that one addon needs. Without the
 * addon (no compiler at install, Windows, a packed copy without the build)
 * lock.ts falls back to a socket or the pid.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface NativeLock {
  /**
   * A descriptor of `file` (created 0600 when missing, close-on-exec) that
   * holds an exclusive flock, or -1 when another open file holds it. Throws
   * an errno error for anything else. Closing the descriptor releases it.
   */
  lockFile(file: string): number;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The package root seen from lib/engine/storage (tsx) and from dist/lib/engine/storage (built). */
const ROOTS = [path.resolve(HERE, '..', '..', '..'), path.resolve(HERE, '..', '..', '..', '..')];
const ADDON = path.join('build', 'Release', 'eddydb_lock.node');

let loaded: NativeLock | { unavailable: string } | undefined;

/** The addon, or why it is not there; loaded once per process. */
export function nativeLock(): NativeLock | { unavailable: string } {
  loaded ??= load();
  return loaded;
}

function load(): NativeLock | { unavailable: string } {
  const file = ROOTS.map((r) => path.join(r, ADDON)).find((p) => existsSync(p));
  if (file === undefined) return { unavailable: `${ADDON} was not built (npm install builds it with node-gyp)` };
  try {
    const addon = createRequire(import.meta.url)(file) as Partial<NativeLock>;
    if (typeof addon.lockFile !== 'function') return { unavailable: `${file} has no flock on this platform` };
    return addon as NativeLock;
  } catch (err) {
    return { unavailable: `${file} did not load: ${(err as Error).message}` };
  }
}
