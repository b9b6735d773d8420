/** The overview's Prometheus text reader: the HTTP families summed (the scrape's own route left out), memory read. */
import { expect } from 'chai';
import { parseTotals, pointBetween } from '../../console/src/metrics.js';

const TEXT = [
  '# HELP eddydb_http_requests_total HTTP requests answered',
  '# TYPE eddydb_http_requests_total counter',
  'eddydb_http_requests_total{route="/api/health",method="GET",status="200"} 4',
  'eddydb_http_requests_total{route="/api/insert/:collection",method="POST",status="200"} 6',
  'eddydb_http_requests_total{route="/metrics",method="GET",status="200"} 100',
  'eddydb_http_request_duration_seconds_bucket{le="0.005",route="/api/health",method="GET",status="200"} 4',
  'eddydb_http_request_duration_seconds_sum{route="/api/health",method="GET",status="200"} 0.004',
  'eddydb_http_request_duration_seconds_count{route="/api/health",method="GET",status="200"} 4',
  'eddydb_http_request_duration_seconds_sum{route="/api/insert/:collection",method="POST",status="200"} 0.016',
  'eddydb_http_request_duration_seconds_count{route="/api/insert/:collection",method="POST",status="200"} 6',
  'eddydb_http_request_duration_seconds_sum{route="/metrics",method="GET",status="200"} 9',
  'process_cpu_seconds_total 12',
  'process_resident_memory_bytes 52428800',
  '',
].join('\n');

describe('console metrics reader', () => {
  it('sums requests and durations over routes, leaving out /metrics and other families', () => {
    const t = parseTotals(TEXT, 1000);
    expect(t.requests).to.equal(10);
    expect(t.durationCount).to.equal(10);
    expect(t.durationSum).to.be.closeTo(0.02, 1e-12);
    expect(t.residentBytes).to.equal(52428800);
  });

  it('turns two samples into a rate per second and a mean latency in ms', () => {
    const prev = { at: 0, requests: 10, durationSum: 0.02, durationCount: 10, residentBytes: 1 };
    const cur = { at: 2000, requests: 30, durationSum: 0.06, durationCount: 30, residentBytes: 3 * 1024 * 1024 };
    const p = pointBetween(prev, cur);
    expect(p.rate).to.equal(10);
    expect(p.latencyMs).to.be.closeTo(2, 1e-9);
    expect(p.residentMb).to.equal(3);
  });

  it('gives zero, not a negative or NaN, after a counter reset or with no requests', () => {
    const prev = { at: 0, requests: 50, durationSum: 1, durationCount: 50, residentBytes: 0 };
    const p = pointBetween(prev, { at: 1000, requests: 3, durationSum: 0.1, durationCount: 3, residentBytes: 0 });
    expect(p.rate).to.equal(0);
    expect(p.latencyMs).to.equal(0);
  });
});
