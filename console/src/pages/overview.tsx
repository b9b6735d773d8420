/** Overview: the server's health (GET /api/health) and a live chart of request rate and latency (GET /metrics). */
import { useEffect, useState } from 'preact/hooks';
import { api, fetchMetricsText } from '../api.js';
import { ErrorBox, Loading } from '../components.js';
import { parseTotals, pointBetween, type Point, type Totals } from '../metrics.js';

const REFRESH_MS = 3000;
const POINTS = 40;

interface Health {
  status: string;
  version?: string;
  uptime_secs?: number;
  read_only?: boolean;
  storage?: { state?: string; durability?: string; lock?: string; heal_attempts?: number };
  recovery?: { snapshot?: unknown; replayed_batches?: number; dropped_frames?: number; warnings?: unknown[] };
  indexes?: { collection?: string; field?: string; state?: string }[];
}

function duration(secs: number): string {
  const d = Math.floor(secs / 86400);
  const h = Math.floor((secs % 86400) / 3600);
  const m = Math.floor((secs % 3600) / 60);
  return d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : `${m}m ${Math.floor(secs % 60)}s`;
}

/**
 * A line chart of one series as an SVG polyline, newest point at the right edge, scaled to the series' own peak;
 * a dot marks the newest point. The label (for screen readers) says the latest value and the peak.
 */
function Chart(props: { title: string; testId: string; points: Point[]; value: (p: Point) => number; unit: string }) {
  const { title, testId, points, value, unit } = props;
  const w = 320;
  const h = 90;
  const values = points.map(value);
  const max = Math.max(...values, 1e-9);
  const latest = values.length ? values[values.length - 1]! : 0;
  const step = w / (POINTS - 1);
  const xy = values.map((v, i) => [w - (values.length - 1 - i) * step, h - (v / max) * (h - 8) - 4] as const);
  const last = xy[xy.length - 1];
  const peak = values.length ? max : 0;
  return (
    <figure class="chart card">
      <figcaption>
        {title}: <strong data-testid={testId}>{latest.toFixed(2)}</strong> {unit}
        <span class="muted"> (peak {peak.toFixed(2)})</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${w} ${h}`}
        role="img"
        aria-label={`${title}: ${latest.toFixed(2)} ${unit} now, peak ${peak.toFixed(2)}`}
        preserveAspectRatio="none"
      >
        <polyline
          points={xy.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}
          fill="none"
          stroke="currentColor"
          stroke-width="2"
          vector-effect="non-scaling-stroke"
        />
        {last && <circle cx={last[0]} cy={last[1]} r="3" fill="currentColor" />}
      </svg>
    </figure>
  );
}

export function Overview() {
  const [health, setHealth] = useState<Health | null>(null);
  const [points, setPoints] = useState<Point[]>([]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    let prev: Totals | undefined;
    // Health and metrics are fetched apart: a key that may read health but not /metrics still sees health.
    const tick = async () => {
      const [h, text] = await Promise.allSettled([api<Health>('GET', '/api/health'), fetchMetricsText()]);
      if (!live) return;
      if (h.status === 'fulfilled') setHealth(h.value);
      if (text.status === 'fulfilled') {
        const cur = parseTotals(text.value, Date.now());
        if (prev) {
          const p = pointBetween(prev, cur);
          setPoints((ps) => [...ps, p].slice(-POINTS));
        }
        prev = cur;
      }
      const failed = [h, text].find((r) => r.status === 'rejected');
      setError(failed ? failed.reason : null);
    };
    void tick();
    const timer = setInterval(() => void tick(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  const building = health?.indexes?.filter((i) => i.state && i.state !== 'ready') ?? [];
  return (
    <main id="main">
      <h1>Overview</h1>
      <ErrorBox error={error} />
      {!health && !error && <Loading what="the server's health" />}
      {health && (
        <section class="card" aria-labelledby="health-title">
          <h2 id="health-title" class="small">
            Health
          </h2>
          <dl class="facts" data-testid="health">
            <dt>Status</dt>
            <dd>
              {health.status}
              {health.read_only ? ' (read-only)' : ''}
            </dd>
            <dt>Version</dt>
            <dd>{health.version ?? '?'}</dd>
            <dt>Uptime</dt>
            <dd>{health.uptime_secs === undefined ? '?' : duration(health.uptime_secs)}</dd>
            <dt>Durability</dt>
            <dd>{health.storage?.durability ?? '?'}</dd>
            <dt>Storage</dt>
            <dd>
              {health.storage?.state ?? '?'}
              {health.storage?.heal_attempts ? `, ${health.storage.heal_attempts} heal attempts` : ''}
            </dd>
            <dt>Recovery</dt>
            <dd>
              {health.recovery
                ? `${health.recovery.replayed_batches ?? 0} batches replayed, ${health.recovery.dropped_frames ?? 0} frames dropped, ${health.recovery.warnings?.length ?? 0} warnings`
                : '?'}
            </dd>
            <dt>Index builds</dt>
            <dd>
              {building.length === 0
                ? `none running (${health.indexes?.length ?? 0} indexes)`
                : building.map((i) => `${i.collection ?? '?'}.${i.field ?? '?'} ${i.state ?? ''}`).join(', ')}
            </dd>
          </dl>
        </section>
      )}
      <h2 class="small">Traffic and memory (every {REFRESH_MS / 1000} s)</h2>
      <div class="charts">
        <Chart title="Request rate" testId="latest-rate" points={points} value={(p) => p.rate} unit="req/s" />
        <Chart title="Mean latency" testId="latest-latency" points={points} value={(p) => p.latencyMs} unit="ms" />
        <Chart title="Resident memory" testId="latest-memory" points={points} value={(p) => p.residentMb} unit="MB" />
      </div>
    </main>
  );
}
