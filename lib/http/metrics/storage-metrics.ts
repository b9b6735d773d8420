/**
 * The engine's figures: log append and fsync latency, writes per group (how
 * much group commit shares one append), the write queue's depth, snapshots
 * (duration, outcome, age) and the records of each collection.
 *
 * The engine tells the write-path figures through its EngineObserver hooks,
 * which this class implements; the gauges read the database when scraped.
 * Collections are labelled by name, the largest MAX_COLLECTION_LABELS of
 * them, and the records of the rest are added up under OTHER_COLLECTIONS,
 * so a server with thousands of collections keeps a bounded exposition.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EngineObserver } from '../../engine/index.js';
import { RecordedHistogram, type HistogramSeries } from './recorded-histogram.js';

/** Collections labelled by name; the records of the others are summed under OTHER_COLLECTIONS. */
export const MAX_COLLECTION_LABELS = 100;
/** The collection label of that sum (no collection can be named so: names take no parentheses). */
export const OTHER_COLLECTIONS = '(other)';

/** From 100 µs (a write to the page cache) to a second (a disk in trouble). */
const LOG_SECONDS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const GROUP_WRITES_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096];
const SNAPSHOT_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** The database as these gauges read it (Database has this shape). */
export interface StorageSource {
  /** True when nothing is kept on disk: no log, no snapshot. */
  readonly memory: boolean;
  readonly queue: { readonly depth: number };
  readonly state: { readonly collections: ReadonlyMap<string, { readonly records: { readonly size: number } }> };
  /** The engine's clock, in epoch ms. */
  now(): number;
}

export class StorageMetrics implements EngineObserver {
  private readonly append: HistogramSeries;
  private readonly fsync: HistogramSeries;
  private readonly group: HistogramSeries;
  private readonly snapshotSeconds: Histogram;
  private readonly snapshots: Counter<'outcome'>;
  private source: StorageSource | undefined;
  /** When the last snapshot succeeded, or when the source was set (engine clock, ms). */
  private lastSnapshotAt = 0;
  private appendedBytes = 0;

  constructor(private readonly registry: Registry) {
    const registers = [registry];
    this.append = new RecordedHistogram(
      'eddydb_log_append_seconds',
      'Time from a write group handed to the log to its acknowledgment (after the fsync in the always mode).',
      LOG_SECONDS_BUCKETS,
      registry,
    ).series();
    this.fsync = new RecordedHistogram(
      'eddydb_log_fsync_seconds',
      'Time of each fsync of the log.',
      LOG_SECONDS_BUCKETS,
      registry,
    ).series();
    this.group = new RecordedHistogram(
      'eddydb_write_group_writes',
      'Writes (logged batches) per group handed to the log: group commit shares one append among them.',
      GROUP_WRITES_BUCKETS,
      registry,
    ).series();
    const appended = () => this.appendedBytes;
    new Counter({
      name: 'eddydb_log_appended_bytes_total',
      help: 'Bytes appended to the log.',
      registers,
      collect() {
        this.reset();
        this.inc(appended());
      },
    });
    const storage = () => this.source;
    new Gauge({
      name: 'eddydb_write_queue_depth',
      help: 'Writes waiting for the single writer, plus those in groups handed to the log and not yet acknowledged.',
      registers,
      collect() {
        this.set(storage()?.queue.depth ?? 0);
      },
    });
    new Gauge({
      name: 'eddydb_collection_records',
      help:
        `Records stored per collection (expired ones not yet swept included); the ${MAX_COLLECTION_LABELS} ` +
        `largest collections by name, the others summed as "${OTHER_COLLECTIONS}".`,
      labelNames: ['collection'],
      registers,
      collect() {
        this.reset();
        const source = storage();
        if (source) for (const [collection, records] of collectionSizes(source)) this.set({ collection }, records);
      },
    });
    this.snapshotSeconds = new Histogram({
      name: 'eddydb_snapshot_duration_seconds',
      help: 'Time to write, verify and retire a snapshot, for those that succeeded.',
      buckets: SNAPSHOT_SECONDS_BUCKETS,
      registers,
    });
    this.snapshots = new Counter({
      name: 'eddydb_snapshots_total',
      help: 'Snapshots ended, by outcome (success or failure).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['success', 'failure']) this.snapshots.inc({ outcome }, 0);
  }

  /** The database the gauges read, once it is open; the snapshot age is shown only when it keeps data on disk. */
  watch(source: StorageSource): void {
    this.source = source;
    this.lastSnapshotAt = source.now();
    if (source.memory) return;
    const age = () => Math.max(0, source.now() - this.lastSnapshotAt) / 1000;
    new Gauge({
      name: 'eddydb_snapshot_age_seconds',
      help: 'Seconds since the last successful snapshot of this process, or since it opened the data when it has none.',
      registers: [this.registry],
      collect() {
        this.set(age());
      },
    });
  }

  logAppend(seconds: number, bytes: number): void {
    this.append.observe(seconds);
    this.appendedBytes += bytes;
  }

  logFsync(seconds: number): void {
    this.fsync.observe(seconds);
  }

  writeGroup(writes: number): void {
    this.group.observe(writes);
  }

  snapshot(seconds: number, failed: boolean): void {
    this.snapshots.inc({ outcome: failed ? 'failure' : 'success' });
    if (failed) return;
    this.snapshotSeconds.observe(seconds);
    if (this.source) this.lastSnapshotAt = this.source.now();
  }
}

/** The MAX_COLLECTION_LABELS largest collections by records, then OTHER_COLLECTIONS with the rest. */
export function collectionSizes(source: StorageSource): Array<readonly [string, number]> {
  const sizes: Array<readonly [string, number]> = [];
  for (const [name, collection] of source.state.collections) sizes.push([name, collection.records.size]);
  if (sizes.length <= MAX_COLLECTION_LABELS) return sizes;
  sizes.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const others = sizes.slice(MAX_COLLECTION_LABELS).reduce((sum, [, records]) => sum + records, 0);
  return [...sizes.slice(0, MAX_COLLECTION_LABELS), [OTHER_COLLECTIONS, others]];
}
