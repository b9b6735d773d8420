/**
 * Pieces the workflow pages share: the tab bar, the admin-only rule, status badges, times and durations, the status
 * filter and pager kept in the URL, and buttons that ask for a text (a summary, a reason, an output) before acting.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { useAccess } from '../access.js';
import { api } from '../api.js';
import { navigate } from '../router.js';
import './workflow.css';

/** Workflow records as the server answers them: free-form members plus its own. */
export interface WorkflowRecord {
  id: string;
  status?: string;
  created_at?: string;
  updated_at?: string;
  [member: string]: unknown;
}

export const TABS = [
  { id: 'goals', label: 'Goals' },
  { id: 'tasks', label: 'Tasks' },
  { id: 'agents', label: 'Agents' },
  { id: 'schedules', label: 'Schedules' },
] as const;
export type TabId = (typeof TABS)[number]['id'];

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
  const label = TABS.find((t) => t.id === tab)!.label;
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

/** An RFC 3339 time in UTC to the second, or a dash. */
export function Time({ iso }: { iso: unknown }) {
  if (typeof iso !== 'string' || !iso) return <span class="muted">—</span>;
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

/** The status filter of a list, kept in `?status=`. */
export function StatusFilter({ path, query, states }: { path: string; query: URLSearchParams; states: string[] }) {
  return (
    <div class="row">
      <label for="status-filter">Status</label>
      <select
        id="status-filter"
        value={query.get('status') ?? ''}
        onChange={(e) => setQuery(path, query, { status: e.currentTarget.value, page: '' })}
      >
        <option value="">any</option>
        {states.map((s) => (
          <option key={s} value={s}>
            {s.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
    </div>
  );
}

export const PAGE_SIZE = 25;

/**
 * The rows of one page of a list (`?page=`, from 1) after the status filter (`?status=`). The server answers each
 * list whole; the page shows at most PAGE_SIZE rows of it.
 */
export function pageOf<T extends WorkflowRecord>(
  all: T[],
  query: URLSearchParams,
): { rows: T[]; page: number; pages: number; matching: number } {
  const status = query.get('status');
  const matching = status ? all.filter((r) => r.status === status) : all;
  const pages = Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
  const page = Math.min(pages, Math.max(1, Number(query.get('page')) || 1));
  return { rows: matching.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), page, pages, matching: matching.length };
}

export function Pager({
  path,
  query,
  page,
  pages,
  matching,
  noun,
}: {
  path: string;
  query: URLSearchParams;
  page: number;
  pages: number;
  matching: number;
  noun: string;
}) {
  return (
    <div class="pager">
      <button
        type="button"
        class="secondary"
        disabled={page <= 1}
        onClick={() => setQuery(path, query, { page: String(page - 1) })}
      >
        Previous
      </button>
      <span class="muted">
        Page {page} of {pages} · {matching} {noun}
      </span>
      <button
        type="button"
        class="secondary"
        disabled={page >= pages}
        onClick={() => setQuery(path, query, { page: String(page + 1) })}
      >
        Next
      </button>
    </div>
  );
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

/**
 * Runs the page's actions: each call sends one request, then reloads the page's record; a failure is kept in
 * `error` for the page's ErrorBox (a refused lifecycle move says the state and the actions it allows).
 */
export function useActions(after: (result: unknown) => void): {
  error: unknown;
  act(method: string, path: string, body?: unknown): Promise<unknown>;
} {
  const [error, setError] = useState<unknown>(null);
  return {
    error,
    act: async (method, path, body) => {
      setError(null);
      try {
        const result = await api<unknown>(method, path, body);
        after(result);
        return result;
      } catch (err) {
        setError(err);
        return undefined;
      }
    },
  };
}

/** The last moves of a record's lifecycle, newest first. */
export function Transitions({ list }: { list: unknown }) {
  const moves = Array.isArray(list) ? (list as { action?: string; from?: string; to?: string; at?: string }[]) : [];
  if (moves.length === 0) return <p class="muted">No moves yet.</p>;
  return (
    <div class="scroll" role="region" aria-label="Lifecycle moves" tabIndex={0}>
      <table class="data">
        <caption class="wf-visually-hidden">Lifecycle moves, newest first</caption>
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
