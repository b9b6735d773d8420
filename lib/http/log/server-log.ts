/**
 * The server's logger: one per Server, built from ServerConfig. By default a
 * pino logger (fastify's own) writing JSON lines to stdout, or readable text
 * lines (text-format.ts); lines below the configured level cost one compare.
 * Stdout gets the lines of one event-loop turn in one write (line-batcher.ts);
 * a warning or error is written at once, with what was pending before it.
 * An embedder's sink (`ServerConfig.logger`) replaces pino and receives each
 * line at or above the level as `(level, msg, extra)`, with `extra` untouched
 * (an Error stays an Error), which is how specs capture the log.
 *
 * Every part of the server logs through the `ServerLog` function: `extra` is
 * an Error (logged as pino's `err`, its stack followed by its causes') or an
 * object of structured fields, and a line written while serving a request
 * names it (`requestId`, the field `reqId`, as the access log's). Secrets are
 * kept out by the callers (redact.ts).
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { textDestination } from './text-format.js';
import { LineBatcher } from './line-batcher.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** A level of ServerConfig.logLevel: one of LOG_LEVELS, or 'silent' for nothing at all. */
export type LogThreshold = LogLevel | 'silent';
export type LogFormat = 'json' | 'text';

/** Writes one log line; `extra` is an Error (the cause) or structured fields; `requestId` the request it serves. */
export type ServerLog = (level: LogLevel, msg: string, extra?: unknown, requestId?: string) => void;

export interface ServerLogOptions {
  /** Lowest level written (default 'info'). */
  readonly level?: LogThreshold;
  /** Raises the level to 'warn' when it is lower; no effect with a sink. */
  readonly quiet?: boolean;
  readonly format?: LogFormat;
  /** Receives the lines instead of stdout. */
  readonly sink?: ServerLog;
  /** Where pino writes, one write per line (default stdout, batched per event-loop turn). */
  readonly destination?: { write(line: string): unknown };
}

const RANK: Record<LogThreshold, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

/** A logger and how to push out what it has not written yet (before the process exits). */
export interface BuiltLog {
  readonly log: ServerLog;
  readonly flush: () => void;
}

/**
 * Builds the server's logger. Throws on an unknown level or format (a
 * configuration error, reported before anything starts).
 */
export function createServerLog(opts: ServerLogOptions = {}): BuiltLog {
  const level = opts.level ?? 'info';
  if (!Object.hasOwn(RANK, level))
    throw new Error(`log level must be one of ${[...LOG_LEVELS, 'silent'].join(', ')}, not '${String(level)}'`);
  const format = opts.format ?? 'json';
  if (format !== 'json' && format !== 'text')
    throw new Error(`log format must be json or text, not '${String(format)}'`);
  const sink = opts.sink;
  if (sink)
    return {
      log: (lvl, msg, extra, requestId) => {
        if (RANK[lvl] < RANK[level]) return;
        if (requestId === undefined) sink(lvl, msg, extra);
        else sink(lvl, msg, extra, requestId);
      },
      flush: () => undefined,
    };
  const effective: LogThreshold = opts.quiet && RANK[level] < RANK.warn ? 'warn' : level;
  const batcher = opts.destination ? undefined : new LineBatcher(pino.destination({ dest: 1, sync: true }));
  const out: DestinationStream = opts.destination ?? batcher!;
  const logger = pino({ level: effective }, format === 'text' ? textDestination(out) : out);
  const flush = () => batcher?.flush();
  return {
    log: (lvl, msg, extra, requestId) => {
      write(logger, lvl, msg, extra, requestId);
      if (RANK[lvl] >= RANK.warn) flush();
    },
    flush,
  };
}

function write(logger: Logger, level: LogLevel, msg: string, extra: unknown, requestId: string | undefined): void {
  if (requestId !== undefined) {
    logger[level]({ ...fieldsOf(extra), reqId: requestId }, msg);
    return;
  }
  if (extra === undefined) logger[level](msg);
  else logger[level](fieldsOf(extra), msg);
}

/** `extra` as pino's fields: an Error as `err`, an object as it is, anything else as `detail`. */
function fieldsOf(extra: unknown): object {
  if (extra === undefined) return {};
  if (extra instanceof Error) return { err: extra };
  if (typeof extra === 'object' && extra !== null && !Array.isArray(extra)) return extra;
  return { detail: extra };
}
