/**
 * A schedule's run history (GET /api/schedules/{id}/runs, newest first): when each run was due and started, its
 * outcome, how long it took, and its error or result. Polled while the page is open, and refreshed by hand.
 */
import { useEffect } from 'preact/hooks';
import { enc } from '../api.js';
import { ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { duration, setQuery, StatusBadge, text, Time } from './workflow-parts.js';

interface Run {
  id: string;
  scheduled_for?: string;
  started_at?: string;
  ended_at?: string | null;
  status: string;
  error?: unknown;
  result?: unknown;
}

const LIMITS = ['20', '50', '200', '1000'];
const POLL_MS = 5000;

/** What a run left: its error, or its result in short (a function's record count and status, an HTTP status). */
function outcomeText(run: Run): string {
  if (run.error !== undefined && run.error !== null) return text(run.error);
  const r = run.result as { record_count?: number; returned_status?: number; status?: number } | undefined;
  if (!r || typeof r !== 'object') return '';
  const parts: string[] = [];
  if (typeof r.record_count === 'number')
    parts.push(`${r.record_count} ${r.record_count === 1 ? 'record' : 'records'}`);
  if (typeof r.returned_status === 'number') parts.push(`returned ${r.returned_status}`);
  if (typeof r.status === 'number') parts.push(`HTTP ${r.status}`);
  return parts.join(', ');
}

export function ScheduleRuns({
  id,
  path,
  query,
  onRefresh,
}: {
  id: string;
  path: string;
  query: URLSearchParams;
  /** Called with each refresh of the runs, so the schedule's own counters follow. */
  onRefresh: () => void;
}) {
  const limit = LIMITS.includes(query.get('runs') ?? '') ? query.get('runs')! : '50';
  const runs = useApi<{ runs: Run[] }>(`/api/schedules/${enc(id)}/runs?limit=${limit}`);
  useEffect(() => {
    const timer = setInterval(() => {
      runs.reload();
      onRefresh();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [id, limit]);
  const list = runs.data?.runs;
  return (
    <section aria-labelledby="runs-heading">
      <div class="wf-toolbar">
        <h2 id="runs-heading">Run history</h2>
        <div class="row">
          <label for="runs-limit">Last</label>
          <select
            id="runs-limit"
            value={limit}
            onChange={(e) =>
              setQuery(path, query, { runs: e.currentTarget.value === '50' ? '' : e.currentTarget.value })
            }
          >
            {LIMITS.map((l) => (
              <option key={l} value={l}>
                {l} runs
              </option>
            ))}
          </select>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              runs.reload();
              onRefresh();
            }}
            disabled={runs.loading}
          >
            Refresh runs
          </button>
        </div>
      </div>
      <ErrorBox error={runs.error} />
      {!list && !runs.error && <Loading what="the runs" />}
      {list && list.length === 0 && <p class="muted">No runs yet: the first comes at the next run time.</p>}
      {list && list.length > 0 && (
        <div class="scroll" role="region" aria-label="Runs" tabIndex={0}>
          <table class="data" data-testid="runs">
            <thead>
              <tr>
                <th scope="col">Due at</th>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Duration
                </th>
                <th scope="col">Error or result</th>
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id} data-run={r.status}>
                  <td>
                    <Time iso={r.scheduled_for} />
                  </td>
                  <td>
                    <Time iso={r.started_at} />
                  </td>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td class="num">{r.status === 'running' ? 'running' : duration(r.started_at, r.ended_at)}</td>
                  <td class={r.error !== undefined && r.error !== null ? 'wf-error-text wf-wrap' : 'wf-wrap'}>
                    {outcomeText(r)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
