/**
 * RecordedHistogram renders exactly what prom-client's own Histogram renders
 * for the same observations (so the hot path's shortcut changes nothing a
 * Prometheus sees), and counts a value on a bound into that bound's bucket.
 */
import { expect } from 'chai';
import { Histogram, Registry } from 'prom-client';
import { RecordedHistogram } from '../../../lib/http/metrics/recorded-histogram.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];
const VALUES = [0.0005, 0.001, 0.002, 0.01, 0.05, 0.5, 0.99, 1, 3, 42];

describe('http/metrics: RecordedHistogram', () => {
  it("renders the same exposition as prom-client's Histogram for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const recorded = new RecordedHistogram('latency_seconds', 'How long.', BOUNDS, ours);
    const reads = recorded.series({ route: '/api/find/:collection/:id', method: 'GET' });
    const writes = recorded.series({ route: '/api/insert/:collection', method: 'POST' });
    const reference = new Histogram({
      name: 'latency_seconds',
      help: 'How long.',
      labelNames: ['route', 'method'],
      buckets: BOUNDS,
      registers: [theirs],
    });
    for (const value of VALUES) {
      reads.observe(value);
      reference.observe({ route: '/api/find/:collection/:id', method: 'GET' }, value);
    }
    writes.observe(0.02);
    reference.observe({ route: '/api/insert/:collection', method: 'POST' }, 0.02);
    expect(await ours.metrics()).to.equal(await theirs.metrics());
  });

  it('renders an unlabelled series with nothing observed as zeros, and starts over after reset', async () => {
    const registry = new Registry();
    const recorded = new RecordedHistogram('append_seconds', 'Appends.', BOUNDS, registry);
    const series = recorded.series();
    expect(await registry.metrics()).to.contain('append_seconds_bucket{le="+Inf"} 0\nappend_seconds_sum 0\n');
    series.observe(0.01);
    expect(await registry.metrics()).to.contain('append_seconds_bucket{le="0.01"} 1');
    registry.resetMetrics();
    expect(await registry.metrics()).to.contain('append_seconds_count 0');
  });
});
