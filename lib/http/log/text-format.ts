/**
 * The readable log format (`logFormat: 'text'`): one line per entry,
 *   2025-01-02T03:04:05.678Z INFO  GET /api/find/:collection/:id -> 200 ms=0.412 status=200
 * time, level, message, then the structured fields as key=value (strings
 * with spaces or quotes JSON-quoted), and an error's stack with its causes
 * on the lines below. It reformats pino's JSON lines, so the fields are the
 * same in both formats; no extra dependency (pino-pretty is a dev tool).
 */
import type { DestinationStream } from 'pino';

/** pino's own members, shown in the line's fixed part or not at all. */
const OWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err']);
const LABELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };

/** A destination that writes pino's JSON lines to `out` as text lines. */
export function textDestination(out: DestinationStream): DestinationStream {
  return { write: (line: string) => out.write(formatTextLine(line)) };
}

/** One pino JSON line (with its newline) as a text line (with its newline). */
export function formatTextLine(jsonLine: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine;
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : String(entry.time ?? '');
  const label = LABELS[entry.level as number] ?? String(entry.level);
  let line = `${time} ${label} ${String(entry.msg ?? '')}`;
  for (const [key, value] of Object.entries(entry)) if (!OWN.has(key)) line += ` ${key}=${showValue(value)}`;
  const err = entry.err as { stack?: unknown; message?: unknown } | undefined;
  if (err) line += `\n${String(err.stack ?? err.message ?? JSON.stringify(err))}`;
  return line + '\n';
}

function showValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}
