/**
 * The few Prometheus figures the overview charts, read from GET /metrics (text exposition format): HTTP requests
 * answered and the time spent answering them, summed over every route but the scrape's own, and the process's
 * resident memory. Pure: no DOM.
 */
/** Running totals at one moment (counters only grow, so two samples give a rate), and resident memory then. */
export interface Totals {
  at: number;
  requests: number;
  durationSum: number;
  durationCount: number;
  residentBytes: number;
}

/** One chart point: requests per second and mean latency (ms) between two samples, resident memory (MB) at the second. */
export interface Point {
  at: number;
  rate: number;
  latencyMs: number;
  residentMb: number;
}

const FAMILIES = {
  eddydb_http_requests_total: 'requests',
  eddydb_http_request_duration_seconds_sum: 'durationSum',
  eddydb_http_request_duration_seconds_count: 'durationCount',
  process_resident_memory_bytes: 'residentBytes',
} as const;

/** Sums the three families in a metrics text; a series labelled route="/metrics" (the polling itself) is left out. */
export function parseTotals(text: string, at: number): Totals {
  const totals: Totals = { at, requests: 0, durationSum: 0, durationCount: 0, residentBytes: 0 };
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-z_]+)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const key = FAMILIES[m[1] as keyof typeof FAMILIES];
    if (!key || (m[2] ?? '').includes('route="/metrics"')) continue;
    const value = Number(m[3]);
    if (Number.isFinite(value)) totals[key] += value;
  }
  return totals;
}

/** The rate and mean latency between two samples (zero when nothing was answered in between). */
export function pointBetween(prev: Totals, cur: Totals): Point {
  const secs = Math.max((cur.at - prev.at) / 1000, 0.001);
  const count = Math.max(cur.durationCount - prev.durationCount, 0);
  const sum = Math.max(cur.durationSum - prev.durationSum, 0);
  return {
    at: cur.at,
    rate: Math.max(cur.requests - prev.requests, 0) / secs,
    latencyMs: count > 0 ? (sum / count) * 1000 : 0,
    residentMb: cur.residentBytes / (1024 * 1024),
  };
}
