/**
 * Open WebSocket connections and change subscriptions (WebSocket Subscribe
 * and SSE alike), read from the transport and the change notifier when
 * scraped.
 */
import { Gauge, type Registry } from 'prom-client';

/** What these gauges read. */
export interface RealtimeSource {
  /** WebSocket connections open now. */
  connections(): number;
  /** Change subscriptions open now. */
  subscriptions(): number;
}

export class RealtimeMetrics {
  private source: RealtimeSource | undefined;

  constructor(registry: Registry) {
    const source = () => this.source;
    new Gauge({
      name: 'eddydb_websocket_connections',
      help: 'WebSocket connections open.',
      registers: [registry],
      collect() {
        this.set(source()?.connections() ?? 0);
      },
    });
    new Gauge({
      name: 'eddydb_subscriptions',
      help: 'Change subscriptions open (WebSocket Subscribe and SSE).',
      registers: [registry],
      collect() {
        this.set(source()?.subscriptions() ?? 0);
      },
    });
  }

  /** The transport and notifier to read, once the server is built. */
  watch(source: RealtimeSource): void {
    this.source = source;
  }
}
