/**
 * How the engine tells an operator what happened (recovery, snapshots, a
 * failing audit trail, a listener that threw): one callback, injected by
 * whoever opens the Database (the server passes its logger). The engine
 * never writes to the console itself, except through `fallbackEngineLog`
 * when nobody injected a log: errors then still reach stderr, so nothing an
 * operator must act on is swallowed.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One log line: `cause` is the error behind an `error` line (logged with its stack and causes). */
export type EngineLog = (msg: string, level?: LogLevel, cause?: unknown) => void;

/** Errors to stderr with their cause's message; everything else dropped. */
export const fallbackEngineLog: EngineLog = (msg, level, cause) => {
  if (level !== 'error') return;
  const why = cause instanceof Error ? `: ${cause.message}` : cause === undefined ? '' : `: ${String(cause)}`;
  process.stderr.write(`${msg}${why}\n`);
};
