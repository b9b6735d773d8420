/**
 * The records table: typed values shown with their type, headers that sort (ascending, descending, off), and per
 * row a link to the record, Edit and a confirmed Delete (disabled with a reason for a key that may not write).
 */
import { enc } from './api.js';
import { ConfirmButton } from './components.js';
import { stringifyExact } from './json-text.js';
import type { SortKey } from './records-query.js';
import { isTyped, typeOf } from './values.js';

export type Rec = Record<string, unknown> & { id?: unknown };

/** A short text for a cell; integers beyond 2^53 arrive as BigInt and are shown with every digit. */
export function cellText(v: unknown): string {
  const inner = isTyped(v) ? v.value : v;
  if (inner === null || inner === undefined) return '—';
  const text = typeof inner === 'string' ? inner : typeof inner === 'bigint' ? inner.toString() : stringifyExact(inner);
  return text.length > 80 ? text.slice(0, 79) + '…' : text;
}

function cellType(v: unknown): string {
  return typeof v === 'bigint' ? 'Integer' : typeOf(v);
}

/** The columns of a page: id first, then fields in the order they first appear. */
export function columnsOf(rows: Rec[]): string[] {
  const columns: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  return columns.sort((a, b) => (a === 'id' ? -1 : b === 'id' ? 1 : 0));
}

export function RecordsTable({
  collection,
  rows,
  sort,
  onSort,
  canWrite,
  writeTitle,
  onDelete,
  fresh,
}: {
  collection: string;
  rows: Rec[];
  /** Ids that arrived live since the page opened: marked so the eye finds them. */
  fresh?: ReadonlySet<string>;
  sort: SortKey[];
  onSort: (field: string) => void;
  canWrite: boolean;
  writeTitle?: string;
  onDelete: (id: string) => Promise<void>;
}) {
  const columns = columnsOf(rows);
  const recordHref = (id: string) => `/collections/${enc(collection)}/records/${enc(id)}`;
  return (
    <div class="scroll">
      <table class="data records">
        <caption class="visually-hidden">Records of {collection}</caption>
        <thead>
          <tr>
            {columns.map((c) => {
              const key = sort.find((s) => s.field === c);
              const state = key ? (key.ascending ? 'ascending' : 'descending') : undefined;
              return (
                <th scope="col" key={c} aria-sort={state}>
                  <button
                    type="button"
                    class="sort"
                    title={`Sort by ${c}`}
                    data-sort-field={c}
                    onClick={() => onSort(c)}
                  >
                    {c}
                    <span aria-hidden="true" class="arrow">
                      {state === 'ascending' ? '▲' : state === 'descending' ? '▼' : '↕'}
                    </span>
                  </button>
                </th>
              );
            })}
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const id = String(r.id);
            return (
              <tr key={id} data-id={id} class={fresh?.has(id) ? 'fresh' : undefined}>
                {columns.map((c) => (
                  <td key={c} title={c in r ? cellType(r[c]) : undefined}>
                    {c === 'id' ? (
                      <a href={recordHref(id)}>{id}</a>
                    ) : c in r ? (
                      <>
                        {cellText(r[c])} <span class="type">{cellType(r[c])}</span>
                      </>
                    ) : (
                      ''
                    )}
                  </td>
                ))}
                <td>
                  <span class="row-actions">
                    {canWrite ? (
                      <a href={`${recordHref(id)}?edit=1`} aria-label={`Edit ${id}`}>
                        Edit
                      </a>
                    ) : (
                      <button type="button" class="link" disabled title={writeTitle}>
                        Edit
                      </button>
                    )}
                    <ConfirmButton
                      label="Delete"
                      question={`Delete record ${id}? It goes to the trash, where an admin can restore it.`}
                      confirmLabel={`Delete ${id}`}
                      disabled={!canWrite}
                      title={canWrite ? `Delete ${id}` : writeTitle}
                      onConfirm={() => onDelete(id)}
                    />
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
