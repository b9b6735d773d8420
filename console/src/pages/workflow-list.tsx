/**
 * The list page every workflow kind shares: its title and tabs, the admin-only note, a toolbar with the status
 * filter and a New link (a disabled button for a restricted key), then one page of a table, its pager, and the
 * loading and empty states. A kind gives only its columns and what its toolbar adds.
 */
import type { ComponentChildren } from 'preact';
import { enc } from '../api.js';
import { ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import {
  AdminOnlyNote,
  setQuery,
  StatusBadge,
  tabOf,
  titleOf,
  useWorkflowAccess,
  WorkflowTabs,
  type TabId,
  type WorkflowRecord,
} from './workflow-parts.js';

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
  const go = (to: number) => setQuery(path, query, { page: String(to) });
  return (
    <div class="pager">
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => go(page - 1)}>
        Previous
      </button>
      <span class="muted">
        Page {page} of {pages} · {matching} {noun}
      </span>
      <button type="button" class="secondary" disabled={page >= pages} onClick={() => go(page + 1)}>
        Next
      </button>
    </div>
  );
}

/** A column of a list: its header, and the content of its cell in a record's row. */
export interface Column {
  label: string;
  /** A number, aligned right. */
  num?: boolean;
  cell: (r: WorkflowRecord) => ComponentChildren;
}

/** A list's first column: each record's name, linking to its own page. */
export function nameColumn(tab: TabId, label: string, name: (r: WorkflowRecord) => string = titleOf): Column {
  return { label, cell: (r) => <a href={`/workflow/${tab}/${enc(r.id)}`}>{name(r)}</a> };
}

export const STATUS_COLUMN: Column = { label: 'Status', cell: (r) => <StatusBadge status={r.status} /> };

export function WorkflowListPage({
  tab,
  source,
  query,
  columns,
  states,
  filters,
  intro,
  tools,
  empty,
}: {
  tab: TabId;
  /** The API route that answers `{ [tab]: records }`, when not the kind's own. */
  source?: string;
  query: URLSearchParams;
  columns: Column[];
  /** The states of the status filter; none, no filter. */
  states?: string[];
  /** More filters, beside the status filter. */
  filters?: ComponentChildren;
  /** A line in place of the filters. */
  intro?: ComponentChildren;
  /** Buttons before the New link; given the list's reload. */
  tools?: (reload: () => void) => ComponentChildren;
  /** Said when there are no records at all. */
  empty?: string;
}) {
  const { label, noun, api } = tabOf(tab);
  const { admin, reason } = useWorkflowAccess();
  const list = useApi<Record<string, WorkflowRecord[]>>(admin ? (source ?? api) : null);
  const path = `/workflow/${tab}`;
  const all = list.data?.[tab];
  const shown = all && pageOf(all, query);
  const filter = states && <StatusFilter path={path} query={query} states={states} />;
  const create = admin ? (
    <a class="button" href={`${path}/new`}>
      New {noun}
    </a>
  ) : (
    <button type="button" disabled title={reason}>
      New {noun}
    </button>
  );
  return (
    <main id="main">
      <h1>{label}</h1>
      <WorkflowTabs current={tab} />
      <AdminOnlyNote admin={admin} />
      <div class="wf-toolbar">
        {intro}
        {filters ? (
          <div class="row">
            {filter}
            {filters}
          </div>
        ) : (
          filter
        )}
        {tools ? (
          <div class="row">
            {tools(list.reload)}
            {create}
          </div>
        ) : (
          create
        )}
      </div>
      <ErrorBox error={list.error} />
      {admin && list.loading && !all && <Loading what={tab} />}
      {shown && shown.matching === 0 && (
        <p class="muted">{all!.length && states ? `No ${noun} has this status.` : (empty ?? `No ${tab} yet.`)}</p>
      )}
      {shown && shown.matching > 0 && (
        <>
          <div class="scroll" role="region" aria-label={label} tabIndex={0}>
            <table class="data">
              <thead>
                <tr>
                  {columns.map((c) => (
                    <th key={c.label} scope="col" class={c.num ? 'num' : undefined}>
                      {c.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {shown.rows.map((r) => (
                  <tr key={r.id} data-id={r.id}>
                    {columns.map((c) => (
                      <td key={c.label} class={c.num ? 'num' : undefined}>
                        {c.cell(r)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager path={path} query={query} {...shown} noun={tab} />
        </>
      )}
    </main>
  );
}
