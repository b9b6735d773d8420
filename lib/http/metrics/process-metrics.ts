/**
 * The process's figures: prom-client's default metrics (CPU, resident
 * memory, heap by space, garbage collection, open handles and files, the
 * event-loop lag since the process started), and each server's event-loop
 * delay since its previous scrape.
 *
 * The default metrics describe the process, not a server, and prom-client's
 * collectors install observers (GC, a monitorEventLoopDelay) that cannot be
 * removed, so they live in one registry per process, made at the first
 * scrape and merged into every server's exposition; never prom-client's
 * global registry, which an embedding application may use for its own.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

let processRegistry: Registry | undefined;

/** The registry of the default metrics, made (and the collectors started) on the first call. */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Resolution of the delay monitor, in ms (node's default). */
const DELAY_RESOLUTION_MS = 10;

/**
 * The event loop's delay over the time since the previous scrape: what an
 * alert wants (the default metrics' lag is since the process started). The
 * monitor starts at the first scrape, so a server never scraped runs none.
 */
export class EventLoopDelay {
  private monitor: IntervalHistogram | undefined;
  /** The figures of the window the current scrape closed, in seconds. */
  private window = { p50: 0, p99: 0, max: 0 };

  constructor(registry: Registry) {
    const read = () => this.window;
    for (const [figure, help] of [
      ['p50', 'median'],
      ['p99', '99th percentile of the'],
      ['max', 'longest'],
    ] as const) {
      new Gauge({
        name: `eddydb_event_loop_delay_${figure}_seconds`,
        help: `The ${help} event-loop delay since the previous scrape (0 at the first).`,
        registers: [registry],
        collect() {
          this.set(read()[figure]);
        },
      });
    }
  }

  /** Closes the window: reads the monitor's figures and starts the next one. Call once per scrape. */
  sample(): void {
    const monitor = this.monitor;
    if (!monitor) {
      this.monitor = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
      this.monitor.enable();
      return;
    }
    const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
    this.window = {
      p50: monitor.count > 0 ? seconds(monitor.percentile(50)) : 0,
      p99: monitor.count > 0 ? seconds(monitor.percentile(99)) : 0,
      max: monitor.count > 0 ? seconds(monitor.max) : 0,
    };
    monitor.reset();
  }

  /** Stops the monitor. */
  close(): void {
    this.monitor?.disable();
    this.monitor = undefined;
  }
}
