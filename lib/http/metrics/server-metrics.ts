/**
 * One server's Prometheus metrics: a prom-client Registry of its own (never
 * the global one: tests run many servers in one process, each with its own
 * figures), the families of this folder registered in it, and the scrape
 * that renders them, with the process's default metrics, in the Prometheus
 * text format.
 *
 * Built before the database opens (the engine reports to `storage` from its
 * first write); `watch` then gives the gauges what they read at scrape time.
 */
import type { AddressInfo } from 'node:net';
import { Gauge, Registry } from 'prom-client';
import { hnswlibBuild } from '../../vector/index.js';
import { listenMetrics, type MetricsListener } from './metrics-server.js';
import type { ServerLog } from '../log/server-log.js';
import { ChatMetrics } from './chat-metrics.js';
import { FunctionMetrics } from './function-metrics.js';
import { EventLoopDelay, processMetrics } from './process-metrics.js';
import { RealtimeMetrics, type RealtimeSource } from './realtime-metrics.js';
import { RequestMetrics } from './request-metrics.js';
import { RippleMetrics, type RippleSource } from './ripple-metrics.js';
import { ScheduleMetrics } from './schedule-metrics.js';
import { StorageMetrics, type StorageSource } from './storage-metrics.js';

/** The Content-Type of a scrape: the Prometheus text exposition format, version 0.0.4. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** What the gauges read once the server is built. */
export interface MetricsSources extends RealtimeSource {
  readonly storage: StorageSource;
  readonly ripples: RippleSource;
}

export class ServerMetrics {
  private readonly registry = new Registry();
  /** Told by the Dispatcher of every answer. */
  readonly requests: RequestMetrics;
  /** The engine's observer (DatabaseOptions.observe). */
  readonly storage: StorageMetrics;
  /** StoredFunctions' call observer. */
  readonly functions: FunctionMetrics;
  /** What meteredProviders reports to. */
  readonly chat: ChatMetrics;
  /** Told by the Scheduler of each run. */
  readonly schedules: ScheduleMetrics;
  private readonly realtime: RealtimeMetrics;
  private readonly ripples: RippleMetrics;
  private readonly eventLoop: EventLoopDelay;
  private listener: MetricsListener | undefined;

  /** `version`: the server's, as `eddydb_build_info` shows it. */
  constructor(version: string) {
    const registry = this.registry;
    this.requests = new RequestMetrics(registry);
    this.storage = new StorageMetrics(registry);
    this.functions = new FunctionMetrics(registry);
    this.chat = new ChatMetrics(registry);
    this.schedules = new ScheduleMetrics(registry);
    this.realtime = new RealtimeMetrics(registry);
    this.ripples = new RippleMetrics(registry);
    this.eventLoop = new EventLoopDelay(registry);
    new Gauge({
      name: 'eddydb_build_info',
      help: 'Always 1; the server version and the build of hnswlib its HNSW graphs run on (avx512, avx2, package) as labels.',
      labelNames: ['version', 'hnswlib'],
      registers: [registry],
    }).set({ version, hnswlib: hnswlibBuild }, 1);
  }

  /** Gives the gauges the database, the transports and the ripple manager to read. */
  watch(sources: MetricsSources): void {
    this.storage.watch(sources.storage);
    this.realtime.watch(sources);
    this.ripples.watch(sources.ripples);
  }

  /** Every metric of this server and of the process, as METRICS_CONTENT_TYPE text. */
  scrape(): Promise<string> {
    this.eventLoop.sample();
    return Registry.merge([processMetrics(), this.registry]).metrics();
  }

  /**
   * Serves the scrape without a token on `host`:`port` (metrics-server.ts), and logs where; a scrape that fails there
   * is logged as an error. Resolves with the bound address; rejects when the port cannot be bound.
   */
  async listen(port: number, host: string, log: ServerLog): Promise<AddressInfo> {
    const failed = (err: unknown) => log('error', 'metrics scrape failed', err);
    this.listener = await listenMetrics(
      { scrape: () => this.scrape(), contentType: METRICS_CONTENT_TYPE, failed },
      port,
      host,
    );
    const { address } = this.listener;
    log('info', `metrics served without a token at http://${hostPart(address)}:${address.port}/metrics`);
    return address;
  }

  /** Where the metrics port listens, once it does. */
  get address(): AddressInfo | undefined {
    return this.listener?.address;
  }

  /** Stops the metrics port and the event-loop delay monitor. */
  async close(): Promise<void> {
    this.eventLoop.close();
    await this.listener?.close();
  }
}

/** An address as the host part of a URL (an IPv6 one in brackets). */
function hostPart(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}
