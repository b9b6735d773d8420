/**
 * Log lines for storage events: the cause once, at error level, when the
 * engine turns read-only; a warning per summary interval while it stays so
 * (how many writes were refused, how many repairs failed); and a warning when
 * it heals. Refused writes themselves are never logged one by one.
 */
import type { StorageEvent, StorageFault } from '../../engine/index.js';
import type { ServerLog } from './server-log.js';

const secs = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const describe = (fault: StorageFault) =>
  `${fault.operation} of ${fault.file} failed with ${fault.code} (${fault.message})`;

/** Writes one log line for `event`. */
export function logStorageEvent(log: ServerLog, event: StorageEvent): void {
  switch (event.kind) {
    case 'read_only':
      log(
        'error',
        `storage failure: ${describe(event.cause)}; the database is read-only and refuses writes with 503 ` +
          `until the disk accepts writes again (first retry in ${secs(event.retryInMs)})`,
      );
      return;
    case 'still_read_only': {
      const last = event.lastError ? ` (last: ${event.lastError.code} ${event.lastError.message})` : '';
      log(
        'warn',
        `still read-only after ${event.cause.code}: ${event.refused} writes rejected while read-only ` +
          `in the last ${secs(event.windowMs)}; ${event.attempts} repair attempts failed so far${last}`,
      );
      return;
    }
    case 'healed':
      log(
        'warn',
        `storage healed after ${secs(event.downMs)} and ${event.attempts} repair attempt(s): ` +
          `the log is cut back to its last good frame and writes are accepted again ` +
          `(${event.refused} writes were rejected while read-only)`,
      );
      return;
    default: {
      const never: never = event;
      throw new Error(`unknown storage event ${(never as StorageEvent).kind}`);
    }
  }
}
