/**
 * The workflow section's front page: how many goals, tasks, agents and schedules there are, by status, each
 * linking to its tab filtered on that status. Goals, tasks and agents belong to chat; schedules the server fires.
 */
import { ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import {
  AdminOnlyNote,
  StatusBadge,
  tabOf,
  TABS,
  useWorkflowAccess,
  WorkflowTabs,
  type TabId,
  type WorkflowRecord,
} from './workflow-parts.js';

const BLURBS: Record<TabId, string> = {
  goals: 'Plans with steps, reviewed before they complete.',
  tasks: 'Work a worker runs once, on a cron or by hand, with retries.',
  agents: 'Named prompts, models and providers for chat sessions.',
  schedules: 'Stored functions or HTTP requests the server runs on a cron.',
};

function Summary({ kind, admin }: { kind: TabId; admin: boolean | null }) {
  const { label, api } = tabOf(kind);
  const list = useApi<Record<string, WorkflowRecord[]>>(admin ? api : null);
  const records = list.data?.[kind];
  const byStatus = new Map<string, number>();
  for (const r of records ?? []) if (r.status) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  return (
    <section class="card" aria-labelledby={`summary-${kind}`} data-kind={kind}>
      <h2 id={`summary-${kind}`} class="small">
        <a href={`/workflow/${kind}`}>{label}</a>
      </h2>
      <p class="muted small">{BLURBS[kind]}</p>
      <ErrorBox error={list.error} />
      {admin && !records && !list.error && <Loading what={kind} />}
      {records && (
        <>
          <p class="wf-count" data-testid={`${kind}-count`}>
            {records.length}
          </p>
          <ul class="wf-by-status">
            {[...byStatus].map(([status, n]) => (
              <li key={status}>
                <a href={`/workflow/${kind}?status=${encodeURIComponent(status)}`}>
                  <StatusBadge status={status} /> {n}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function Workflow() {
  const { admin } = useWorkflowAccess();
  return (
    <main id="main">
      <h1>Workflow</h1>
      <WorkflowTabs />
      <AdminOnlyNote admin={admin} />
      <div class="wf-summaries">
        {TABS.map((t) => (
          <Summary key={t.id} kind={t.id} admin={admin} />
        ))}
      </div>
    </main>
  );
}
