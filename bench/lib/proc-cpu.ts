/**
 * CPU time of another process, read from /proc/<pid>/stat (utime + stime,
 * in clock ticks): the server cannot be instrumented from outside, but its
 * CPU per request can be measured this way.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second (USER_HZ); 100 on every Linux the suite runs on. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) used so far by process `pid`, in microseconds; NaN when /proc is unavailable. */
export function processCpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]),
      stime = Number(fields[12]);
    return ((utime + stime) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}
