/**
 * Notices that the process that started the server has died. Killing
 * `npm start` by its PID (what process managers and containers do) can
 * leave node orphaned, still holding the port and the data lock; an orphan
 * is re-parented (to init or a subreaper), so its `process.ppid` changes.
 * A light, unref'd interval compares it with the one seen at start: it
 * costs one syscall a second and never keeps the process alive by itself.
 */

export interface ParentWatchOptions {
  /** How often to look (default 1000 ms). */
  intervalMs?: number;
  /** Where the parent pid is read (process.ppid by default; injectable for tests). */
  parentPid?: () => number;
}

/** Whether to watch the parent: `--watch-parent` / EDDYDB_WATCH_PARENT when given, otherwise only under npm. */
export function shouldWatchParent(setting: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return setting ?? Boolean(env.npm_lifecycle_event);
}

/**
 * Calls `onOrphaned` once, with the old and new parent pid, when the parent
 * pid changes. Returns a function that stops watching.
 */
export function watchParent(onOrphaned: (was: number, now: number) => void, opts: ParentWatchOptions = {}): () => void {
  const read = opts.parentPid ?? (() => process.ppid);
  const original = read();
  const timer = setInterval(() => {
    const now = read();
    if (now === original) return;
    clearInterval(timer);
    onOrphaned(original, now);
  }, opts.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}
