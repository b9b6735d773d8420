/**
 * How the offline tools show the engine's log: warnings and errors (a
 * truncated tail, a fallback to an older generation) on stderr; the
 * routine recovery lines stay out of the way of the tool's own output.
 */
import type { LogLevel } from '../../engine/index.js';

/** A Database `log` option for a tool run. */
export function toolLog(msg: string, level: LogLevel = 'info'): void {
  if (level === 'warn' || level === 'error') console.error(msg);
}
