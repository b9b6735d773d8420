/**
 * What the user is told when a command fails. Known failures (a port in
 * use or forbidden, a permission or disk problem, a locked or damaged data
 * directory, a refusal from the engine, a tool's own refusal) are one or two
 * lines saying what happened and what to do; anything else is a bug and
 * keeps its stack. main.ts prints the result and exits 1.
 */
import { Corruption, DbError } from '../errors.js';

/** A command's own expected refusal (no data directory, no such collection): printed as is, exit 1. */
export class CliFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliFailure';
  }
}

export interface FailureContext {
  readonly port?: number;
  readonly host?: string;
  readonly dataDir?: string;
}

/** The lines for a known failure, or undefined when `err` is unexpected (the caller prints its stack). */
export function describeFailure(err: unknown, ctx: FailureContext): string | undefined {
  if (err instanceof CliFailure) return err.message;
  if (err instanceof Corruption) {
    const dir = ctx.dataDir ? ` --data-dir ${ctx.dataDir}` : '';
    return (
      `${err.message}\nrun 'eddydb verify${dir}' to see what is damaged; 'eddydb start --salvage' starts from ` +
      `what is readable`
    );
  }
  const errno = findErrno(err);
  if (errno) return describeErrno(errno, ctx);
  if (err instanceof DbError) return err.message;
  return undefined;
}

/** The first error in the cause chain that carries an errno code. */
function findErrno(err: unknown): NodeJS.ErrnoException | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    // Errno codes (EACCES, EAI_AGAIN), not node's own ERR_* codes.
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code) && !code.startsWith('ERR_'))
      return e as NodeJS.ErrnoException;
  }
  return undefined;
}

function describeErrno(
  e: NodeJS.ErrnoException & { port?: number; address?: string; hostname?: string },
  ctx: FailureContext,
): string | undefined {
  const port = e.port ?? ctx.port;
  const host = e.address ?? ctx.host;
  const isNetwork = e.syscall === 'listen' || e.syscall === 'bind';
  switch (e.code) {
    case 'EADDRINUSE':
      return (
        `port ${port} on ${host} is already in use (is another server running?); stop it or choose another ` +
        `port with --port`
      );
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${host}: it is not an address of this machine; check --host`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host name '${e.hostname ?? host}'; check --host`;
    case 'EACCES':
    case 'EPERM':
      if (isNetwork)
        return (
          `no permission to listen on port ` +
          `${port}${port !== undefined && port < 1024 ? ' (ports below 1024 need privileges)' : ''}; choose another ` +
          `with --port`
        );
      return (
        `permission denied: cannot ${e.syscall ?? 'use'} ${e.path ?? ctx.dataDir ?? 'a file'}; check the owner ` +
        `and mode of the data directory`
      );
    case 'ENOSPC':
      return `no space left on the device${e.path ? ` holding ${e.path}` : ''}`;
    case 'EROFS':
      return `read-only file system: cannot write ${e.path ?? ctx.dataDir ?? 'the data directory'}`;
    case 'ENOTDIR':
      return `not a directory: ${e.path ?? ctx.dataDir}`;
    case 'EISDIR':
      return `is a directory, not a file: ${e.path ?? '(unknown path)'}`;
    case 'ENOENT':
      return e.path ? `no such file or directory: ${e.path}` : undefined;
    default:
      return undefined;
  }
}
