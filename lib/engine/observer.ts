/**
 * EngineObserver: what the engine tells whoever watches it work (the
 * server's Prometheus metrics, lib/http/metrics): log appends and fsyncs
 * with their latency, how many writes share a group, snapshots written.
 *
 * Every hook is optional and is called synchronously on the write path, so
 * an implementation must be cheap and must not throw; without an observer
 * the engine reads no clock for it. The engine measures nothing else and
 * imports no metrics library: what to keep and how to show it is the
 * observer's business.
 */
export interface EngineObserver {
  /**
   * An append acknowledged by the log: seconds from hand-over to acknowledgment (durable under `always`, written
   * under `batch` and `none`), and its bytes.
   */
  logAppend?(seconds: number, bytes: number): void;
  /** One fsync of the log segment, in seconds (the append cycle's, or the background one of `batch` and `none`). */
  logFsync?(seconds: number): void;
  /** A group handed to the log: how many writes (logged batches) share its one append. */
  writeGroup?(writes: number): void;
  /** A snapshot ended: seconds it took (written, verified, old files removed), and whether it failed. */
  snapshot?(seconds: number, failed: boolean): void;
}
