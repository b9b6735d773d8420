/**
 * Ripple lag per peer: how many committed batches each replication peer has
 * not acknowledged yet, read from the ripple manager when scraped. The peer
 * label is its configured URL without user or password; peers are few and
 * configured, so the label stays bounded.
 */
import { Gauge, type Registry } from 'prom-client';

/** What the gauge reads (RippleManager's status). */
export interface RippleSource {
  status(): { readonly peers: ReadonlyArray<{ readonly url: string; readonly lag: number }> };
}

export class RippleMetrics {
  private source: RippleSource | undefined;

  constructor(registry: Registry) {
    const source = () => this.source;
    new Gauge({
      name: 'eddydb_ripple_lag_batches',
      help: 'Committed batches a ripple peer has not acknowledged yet, by peer URL.',
      labelNames: ['peer'],
      registers: [registry],
      collect() {
        this.reset();
        for (const peer of source()?.status().peers ?? []) this.set({ peer: peerLabel(peer.url) }, peer.lag);
      },
    });
  }

  /** The ripple manager to read, once the server is built. */
  watch(source: RippleSource): void {
    this.source = source;
  }
}

/** A peer's URL without credentials, which a label must never carry. */
export function peerLabel(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return url;
  }
}
