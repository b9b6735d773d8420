/**
 * Notices that the process that started the server has died. Killing
 * `npm start` by its PID (what process managers and containers do) leaves
 * the script's process tree orphaned, still holding the port and the data
 * lock. An orphan is re-parented (to init or a subreaper), so its parent
 * pid changes. npm runs the script through `sh -c`, so it is the shell that
 * is orphaned, not node: when our parent is a shell, its parent is watched
 * too (read from /proc, so on Linux only; elsewhere just our own parent).
 * A light, unref'd interval compares the pids with those seen at start: a
 * few small reads a second, and it never keeps the process alive by itself.
 */
import { readFileSync } from 'node:fs';

export interface ParentWatchOptions {
  /** How often to look (default 1000 ms). */
  intervalMs?: number;
  /** The parent pid of a process, undefined when it is gone or unknown (injectable for tests). */
  parentOf?: (pid: number) => number | undefined;
  /** The command name of a process (`sh`), undefined when unknown. */
  commandOf?: (pid: number) => string | undefined;
}

/** Shells that run a command line for another program, as npm's `sh -c` does. */
const SHELLS = new Set(['sh', 'dash', 'bash', 'ash', 'zsh', 'ksh', 'mksh']);
/** How many shells deep to follow (`sh -c "sh -c node"` is already rare). */
const MAX_SHELLS = 2;

/** Whether to watch the parent: `--watch-parent` / EDDYDB_WATCH_PARENT when given, otherwise only under npm. */
export function shouldWatchParent(setting: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return setting ?? Boolean(env.npm_lifecycle_event);
}

interface Link {
  readonly pid: number;
  readonly parent: number | undefined;
}

/**
 * Calls `onOrphaned` once, with a sentence saying which parent exited, when
 * our parent pid changes, or that of a shell between us and the process
 * that started us. Returns a function that stops watching.
 */
export function watchParent(onOrphaned: (what: string) => void, opts: ParentWatchOptions = {}): () => void {
  const parentOf = opts.parentOf ?? procParentOf;
  const commandOf = opts.commandOf ?? procCommandOf;
  const chain: Link[] = [{ pid: process.pid, parent: parentOf(process.pid) }];
  for (
    let last = chain[0]!;
    last.parent !== undefined && chain.length <= MAX_SHELLS && SHELLS.has(commandOf(last.parent) ?? '');
  ) {
    last = { pid: last.parent, parent: parentOf(last.parent) };
    chain.push(last);
  }
  const timer = setInterval(() => {
    const broken = chain.find((link) => parentOf(link.pid) !== link.parent);
    if (!broken) return;
    clearInterval(timer);
    const whose = broken.pid === process.pid ? '' : ` (of the shell ${broken.pid} that started this server)`;
    onOrphaned(`parent process ${broken.parent}${whose} exited`);
  }, opts.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Our own parent from node; another process's from /proc/<pid>/stat (the field after the parenthesised name and the
 * state).
 */
function procParentOf(pid: number): number | undefined {
  if (pid === process.pid) return process.ppid;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined; // gone, or no /proc here
  }
}

function procCommandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}
