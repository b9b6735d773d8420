/**
 * Log lines for storage events: the cause once, at error level, when the
 * engine turns read-only; a warning per summary interval while it stays so
 * (how many writes were refused, how many repairs failed); and a warning when
 * it heals. Refused writes themselves are never logged one by one.
 */
import type { StorageEvent, StorageFault } from '../../engine/index.js';
import type { ServerLog } from './server-log.js';

const secs = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const describe = (c: StorageFault) => `${c.operation} of ${c.file} failed with ${c.code} (${c.message})`;

/** Writes one log line for `e`. */
export function logStorageEvent(log: ServerLog, e: StorageEvent): void {
  switch (e.kind) {
    case 'read_only':
      log('error', `storage failure: ${describe(e.cause)}; the database is read-only and refuses writes with 503 until the disk accepts writes again (first retry in ${secs(e.retryInMs)})`);
      return;
    case 'still_read_only': {
      const last = e.lastError ? ` (last: ${e.lastError.code} ${e.lastError.message})` : '';
      log('warn', `still read-only after ${e.cause.code}: ${e.refused} writes rejected while read-only in the last ${secs(e.windowMs)}; ${e.attempts} repair attempts failed so far${last}`);
      return;
    }
    case 'healed':
      log('warn', `storage healed after ${secs(e.downMs)} and ${e.attempts} repair attempt(s): the log is cut back to its last good frame and writes are accepted again (${e.refused} writes were rejected while read-only)`);
      return;
    default: {
      const never: never = e;
      throw new Error(`unknown storage event ${(never as StorageEvent).kind}`);
    }
  }
}
