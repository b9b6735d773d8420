/**
 * Pieces the workflow pages share: the tab bar, the admin-only rule, status badges, times and durations, buttons
 * that ask for a text (a summary, a reason, an output) before acting, and the frames of a record's page and of the
 * form for a new one.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { useAccess } from '../access.js';
import { api, enc } from '../api.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi, type Loaded } from '../hooks.js';
import { navigate } from '../router.js';
import { allows, notAllowedReason, type Lifecycle } from './workflow-lifecycles.js';
import './workflow.css';

/** Workflow records as the server answers them: free-form members plus its own. */
export interface WorkflowRecord {
  id: string;
  status?: string;
  created_at?: string;
  updated_at?: string;
  [member: string]: unknown;
}

/** The kinds of the section: each one's tab title, the noun of one record, and its API route. */
export const TABS = [
  { id: 'goals', label: 'Goals', noun: 'goal', api: '/api/chat/goals' },
  { id: 'tasks', label: 'Tasks', noun: 'task', api: '/api/chat/tasks' },
  { id: 'agents', label: 'Agents', noun: 'agent', api: '/api/chat/agents' },
  { id: 'schedules', label: 'Schedules', noun: 'schedule', api: '/api/schedules' },
] as const;
export type TabId = (typeof TABS)[number]['id'];

export function tabOf(tab: TabId): { label: string; noun: string; api: string } {
  return TABS.find((t) => t.id === tab)!;
}

/** The tabs of the workflow section, as links (each tab is its own URL). */
export function WorkflowTabs({ current }: { current?: TabId }) {
  return (
    <nav class="wf-tabs" aria-label="Workflow">
      {TABS.map((t) => (
        <a key={t.id} href={`/workflow/${t.id}`} aria-current={current === t.id ? 'page' : undefined}>
          {t.label}
        </a>
      ))}
    </nav>
  );
}

/** The breadcrumb of a workflow page below the section. */
export function Crumbs({ tab, here }: { tab: TabId; here: string }) {
  const { label } = tabOf(tab);
  return (
    <nav aria-label="Breadcrumb" class="crumbs">
      <a href="/workflow">Workflow</a> / <a href={`/workflow/${tab}`}>{label}</a> / <span>{here}</span>
    </nav>
  );
}

export const ADMIN_ONLY_REASON = 'Only an admin key may use goals, tasks, agents and schedules';

/**
 * Whether the signed-in key may use the workflow (every route is admin-only): null until known. `reason` is the
 * title for a disabled control (undefined for an admin).
 */
export function useWorkflowAccess(): { admin: boolean | null; reason: string | undefined } {
  const access = useAccess();
  const admin = access ? access.admin : null;
  return { admin, reason: admin ? undefined : admin === null ? 'Checking this key’s rights…' : ADMIN_ONLY_REASON };
}

/** Said once on a page when the key is not an admin, instead of a 403 from every list. */
export function AdminOnlyNote({ admin }: { admin: boolean | null }) {
  if (admin !== false) return null;
  return (
    <p class="card wf-note" data-testid="admin-only">
      {ADMIN_ONLY_REASON}. This key is restricted, so the lists stay empty and the controls are disabled; sign in with
      an admin key to manage them.
    </p>
  );
}

export function StatusBadge({ status }: { status: unknown }) {
  const s = typeof status === 'string' ? status : 'unknown';
  return (
    <span class={`wf-status wf-${s}`} data-status={s}>
      {s.replace(/_/g, ' ')}
    </span>
  );
}

/** Shown for a value a record does not have. */
export function Dash() {
  return <span class="muted">—</span>;
}

/** An RFC 3339 time in UTC to the second, or a dash. */
export function Time({ iso }: { iso: unknown }) {
  if (typeof iso !== 'string' || !iso) return <Dash />;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return <span>{iso}</span>;
  return <time dateTime={iso}>{new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC</time>;
}

/** The time between two RFC 3339 instants, e.g. "12 ms" or "3.4 s"; a dash while unknown. */
export function duration(from: unknown, to: unknown): string {
  if (typeof from !== 'string' || typeof to !== 'string') return '—';
  const ms = Date.parse(to) - Date.parse(from);
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A member shown as text: strings as they are, other values as JSON. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A counter member of a record, 0 when it has none yet. */
export function count(r: WorkflowRecord, member: string): number {
  return typeof r[member] === 'number' ? (r[member] as number) : 0;
}

/** The first text member that names a record (title, name, description), else its id. */
export function titleOf(r: WorkflowRecord): string {
  for (const m of ['title', 'name', 'description']) if (typeof r[m] === 'string' && r[m]) return r[m] as string;
  return r.id;
}

/** Replaces some of the page's query parameters (empty values removed), keeping the rest. */
export function setQuery(path: string, query: URLSearchParams, changes: Record<string, string>): void {
  const next = new URLSearchParams(query);
  for (const [k, v] of Object.entries(changes)) {
    if (v) next.set(k, v);
    else next.delete(k);
  }
  const qs = next.toString();
  navigate(qs ? `${path}?${qs}` : path, true);
}

/** A button that runs an action, busy while it runs. */
export function ActionButton({
  label,
  onClick,
  disabled,
  title,
  secondary = true,
}: {
  label: string;
  onClick: () => Promise<unknown>;
  disabled?: boolean;
  title?: string;
  secondary?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      class={secondary ? 'secondary' : undefined}
      disabled={disabled || busy}
      title={title}
      onClick={() => {
        setBusy(true);
        void onClick().finally(() => setBusy(false));
      }}
    >
      {label}
    </button>
  );
}

/** A button that asks for a text in a modal dialog (Escape or Cancel closes it without acting), then acts with it. */
export function PromptButton({
  label,
  field,
  onSubmit,
  disabled,
  title,
  hint,
}: {
  label: string;
  /** The label of the text input. */
  field: string;
  onSubmit: (value: string) => Promise<unknown>;
  disabled?: boolean;
  title?: string;
  hint?: ComponentChildren;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const id = `prompt-${label.toLowerCase().replace(/\W+/g, '-')}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await onSubmit(value);
      setValue('');
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <>
      <button
        type="button"
        class="secondary"
        disabled={disabled}
        title={title}
        onClick={() => dialog.current?.showModal()}
      >
        {label}
      </button>
      <dialog ref={dialog} class="confirm" aria-label={label}>
        <form method="dialog" class="wf-prompt" onSubmit={(e) => void submit(e)}>
          <label for={id}>{field}</label>
          <input id={id} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
          {hint && <p class="muted small">{hint}</p>}
          <div class="actions">
            <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" disabled={busy}>
              {label}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

/** A text as JSON when it parses, else the text itself (an output or error may be either). */
export function jsonOrText(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** The record's members as JSON (for the detail pages). */
export function RecordJson({ record, label }: { record: unknown; label: string }) {
  return (
    <details class="card wf-json">
      <summary>{label}</summary>
      <pre class="json" tabIndex={0} aria-label={label}>
        {JSON.stringify(record, null, 2)}
      </pre>
    </details>
  );
}

/** The last moves of a record's lifecycle, newest first. */
export function Transitions({ list }: { list: unknown }) {
  const moves = Array.isArray(list) ? (list as { action?: string; from?: string; to?: string; at?: string }[]) : [];
  if (moves.length === 0) return <p class="muted">No moves yet.</p>;
  return (
    <div class="scroll" role="region" aria-label="Lifecycle moves" tabIndex={0}>
      <table class="data">
        <caption class="visually-hidden">Lifecycle moves, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
          </tr>
        </thead>
        <tbody>
          {[...moves].reverse().map((m, i) => (
            <tr key={i}>
              <td>
                <Time iso={m.at} />
              </td>
              <td>{m.action}</td>
              <td>
                <StatusBadge status={m.from} />
              </td>
              <td>
                <StatusBadge status={m.to} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A control's `disabled` and `title`: off when the key may not act, or when the state does not allow the action. */
export function gate(
  reason: string | undefined,
  lifecycle: Lifecycle,
  status: unknown,
  noun: string,
  action: string,
): { disabled: boolean; title: string | undefined } {
  const why = reason ?? (allows(lifecycle, status, action) ? '' : notAllowedReason(lifecycle, status, noun));
  return { disabled: !!why, title: why || undefined };
}

/** What a record's page works with: the key's rights, the record as loaded, and its actions. */
export interface RecordPage {
  tab: TabId;
  /** The record's id, from the URL. */
  id: string;
  /** The kind's lifecycle: its actions' gates, and a status fact on the page. */
  lifecycle?: Lifecycle;
  admin: boolean | null;
  reason: string | undefined;
  load: Loaded<WorkflowRecord>;
  /** The record's API route; its actions are below it. */
  base: string;
  /** The last action's failure, for the page's ErrorBox (a refused move says the actions the state allows). */
  error: unknown;
  /** Sends one request, then reloads the record; answers undefined when it fails. */
  act(method: string, path: string, body?: unknown): Promise<unknown>;
  /** An action's `disabled` and `title` under the kind's lifecycle. */
  gate(action: string): { disabled: boolean; title: string | undefined };
}

/** Loads a record for its page (once the key is known to be an admin); each action reloads it. */
export function useRecordPage(tab: TabId, id: string, lifecycle?: Lifecycle): RecordPage {
  const { admin, reason } = useWorkflowAccess();
  const { noun, api: route } = tabOf(tab);
  const base = `${route}/${enc(id)}`;
  const load = useApi<WorkflowRecord>(admin ? base : null);
  const [error, setError] = useState<unknown>(null);
  return {
    tab,
    id,
    lifecycle,
    admin,
    reason,
    load,
    base,
    error,
    act: async (method, path, body) => {
      setError(null);
      try {
        const result = await api<unknown>(method, path, body);
        load.reload();
        return result;
      } catch (err) {
        setError(err);
        return undefined;
      }
    },
    gate: (action) => gate(reason, lifecycle ?? {}, load.data?.status, noun, action),
  };
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A term and its value in a facts card. */
export function Fact({
  term,
  testid,
  class: className,
  children,
}: {
  term: string;
  testid?: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <>
      <dt>{term}</dt>
      <dd data-testid={testid} class={className}>
        {children}
      </dd>
    </>
  );
}

/** A time in a facts card. */
export function TimeFact({ term, iso, testid }: { term: string; iso: unknown; testid?: string }) {
  return (
    <Fact term={term} testid={testid}>
      <Time iso={iso} />
    </Fact>
  );
}

/**
 * The frame of a record's page: breadcrumb and heading, the admin-only note, its loading and error, a card of its
 * facts (its status first, for a kind with a lifecycle), what the kind adds, its lifecycle moves (when `history`
 * names them) and the record as JSON.
 */
export function RecordFrame({
  page,
  name = titleOf,
  heading = name,
  facts,
  history,
  children,
}: {
  page: RecordPage;
  /** The record's name in the breadcrumb. */
  name?: (r: WorkflowRecord) => string;
  heading?: (r: WorkflowRecord) => string;
  /** The facts card's terms and values. */
  facts: (r: WorkflowRecord) => ComponentChildren;
  /** The title of the section of lifecycle moves; none, no section. */
  history?: string;
  children: (r: WorkflowRecord) => ComponentChildren;
}) {
  const { tab, id } = page;
  const { noun } = tabOf(tab);
  const r = page.load.data;
  return (
    <main id="main">
      <Crumbs tab={tab} here={r ? name(r) : id} />
      <h1>{r ? heading(r) : capital(noun)}</h1>
      <AdminOnlyNote admin={page.admin} />
      <ErrorBox error={page.load.error} />
      {page.admin && !r && !page.load.error && <Loading what={`the ${noun}`} />}
      {r && (
        <>
          <section class="card" aria-labelledby={`${noun}-facts`}>
            <h2 id={`${noun}-facts`} class="small">
              {capital(noun)}
            </h2>
            <dl class="facts">
              {page.lifecycle && (
                <Fact term="Status" testid={`${noun}-status`}>
                  <StatusBadge status={r.status} />
                </Fact>
              )}
              {facts(r)}
            </dl>
          </section>
          {children(r)}
          {history && (
            <section aria-labelledby={`${noun}-moves`}>
              <h2 id={`${noun}-moves`}>{history}</h2>
              <Transitions list={r.transitions} />
            </section>
          )}
          <RecordJson record={r} label={`The ${noun} as JSON`} />
        </>
      )}
    </main>
  );
}

/** Deletes the record after asking, then goes back to its list. */
export function DeleteButton({ page, question }: { page: RecordPage; question: string }) {
  return (
    <ConfirmButton
      label="Delete"
      question={question}
      disabled={!page.admin}
      title={page.reason}
      onConfirm={async () => {
        if ((await page.act('DELETE', page.base)) !== undefined) navigate(`/workflow/${page.tab}`);
      }}
    />
  );
}

/** A record's lifecycle buttons and delete, below the failure of the last action. */
export function RecordActions({
  page,
  question,
  children,
}: {
  page: RecordPage;
  /** What delete asks. */
  question: string;
  children: ComponentChildren;
}) {
  return (
    <>
      <ErrorBox error={page.error} />
      <div class="actions wf-actions">
        {children}
        <DeleteButton page={page} question={question} />
      </div>
    </>
  );
}

/** A form's text fields by name: each field's id (`prefix-name`), value and input handler. */
export function useFields<F extends Record<string, string>>(prefix: string, initial: F) {
  const [form, setForm] = useState(initial);
  const set = (name: keyof F, value: string) => setForm((f) => ({ ...f, [name]: value }));
  const field = (name: keyof F & string) => ({
    id: `${prefix}-${name}`,
    value: form[name],
    onInput: (e: { currentTarget: { value: string } }) => set(name, e.currentTarget.value),
  });
  return { form, set, field };
}

/**
 * The frame of the form for a new record: breadcrumb, heading, the admin-only note, the kind's fields, the
 * failure, and Create (disabled until `ready`), which posts `body()` and opens the new record's page.
 */
export function NewRecordForm({
  tab,
  body,
  ready,
  children,
}: {
  tab: TabId;
  body: () => Record<string, unknown>;
  ready: boolean;
  children: ComponentChildren;
}) {
  const { noun, api: source } = tabOf(tab);
  const { admin, reason } = useWorkflowAccess();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api<WorkflowRecord>('POST', source, body());
      navigate(`/workflow/${tab}/${enc(created.id)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <Crumbs tab={tab} here={`New ${noun}`} />
      <h1>{`New ${noun}`}</h1>
      <AdminOnlyNote admin={admin} />
      <form class="card wf-form" onSubmit={(e) => void submit(e)}>
        {children}
        <ErrorBox error={error} />
        <div class="actions">
          <button type="submit" disabled={!admin || busy || !ready} title={reason}>
            {`Create ${noun}`}
          </button>
          <a href={`/workflow/${tab}`}>Cancel</a>
        </div>
      </form>
    </main>
  );
}
