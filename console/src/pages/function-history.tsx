/**
 * The history of a definition: the server keeps each replaced version as a record of the admin-only collection
 * `__function_history` ({function_id, label, document: JSON text {definition, created_at, updated_at},
 * replaced_at}), read here a page at a time through POST /api/find. A version can be viewed, compared with the
 * current definition line by line, and restored (saved again with PUT, which itself keeps the replaced one).
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { lineDiff, unchanged, type DiffLine } from '../line-diff.js';
import { isTyped } from '../values.js';
import { definitionText, type StoredFunction } from './function-model.js';
import './functions.css';

const PAGE = 20;

interface Version {
  /** The history record's id. */
  id: string;
  label: string;
  definition: Record<string, unknown>;
  /** When this version was saved, and when a later save replaced it. */
  savedAt: string;
  replacedAt: string;
}

/** A typed value's inner value (records come back as `{type, value}`). */
function plain(v: unknown): unknown {
  return isTyped(v) ? v.value : v;
}

function toVersion(record: Record<string, unknown>): Version | undefined {
  try {
    const doc = JSON.parse(String(plain(record.document))) as {
      definition: Record<string, unknown>;
      updated_at?: string;
    };
    return {
      id: String(plain(record.id)),
      label: String(plain(record.label)),
      definition: doc.definition,
      savedAt: doc.updated_at ?? '',
      replacedAt: String(plain(record.replaced_at)),
    };
  } catch {
    return undefined;
  }
}

function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Unchanged lines kept around each change; longer unchanged runs are folded into one line. */
const CONTEXT = 3;

type Shown = DiffLine | { kind: 'fold'; count: number };

/** The diff with long unchanged runs folded, keeping CONTEXT lines next to each change. */
function folded(diff: DiffLine[]): Shown[] {
  const out: Shown[] = [];
  let i = 0;
  while (i < diff.length) {
    if (diff[i]!.kind !== 'same') {
      out.push(diff[i++]!);
      continue;
    }
    let end = i;
    while (end < diff.length && diff[end]!.kind === 'same') end++;
    const keepHead = i === 0 ? 0 : CONTEXT;
    const keepTail = end === diff.length ? 0 : CONTEXT;
    if (end - i > keepHead + keepTail + 1) {
      out.push(...diff.slice(i, i + keepHead), { kind: 'fold', count: end - i - keepHead - keepTail });
      out.push(...diff.slice(end - keepTail, end));
    } else out.push(...diff.slice(i, end));
    i = end;
  }
  return out;
}

/** A link to this page with some query members changed. */
function hrefWith(fn: StoredFunction, query: URLSearchParams, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams(query);
  next.set('view', 'history');
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) next.delete(k);
    else next.set(k, v);
  }
  return `/functions/${enc(fn.label)}?${next.toString()}`;
}

export function FunctionHistory({
  fn,
  query,
  admin,
  onRestored,
}: {
  fn: StoredFunction;
  query: URLSearchParams;
  admin: boolean;
  /** Called with the restored definition's label after a restore. */
  onRestored: (label: string) => void;
}) {
  const skip = Math.max(0, Number(query.get('skip')) || 0);
  const selected = query.get('version');
  const show = query.get('show') === 'json' ? 'json' : 'diff';
  const body = {
    filter: { type: 'Condition', content: { field: 'function_id', operator: 'Eq', value: fn.id } },
    sort: [{ field: 'replaced_at', ascending: false }],
    limit: PAGE + 1,
    skip,
  };
  const { data, error, loading, reload } = useApi<Record<string, unknown>[]>(
    admin ? '/api/find/__function_history' : null,
    'POST',
    body,
  );
  if (!admin)
    return (
      <p class="muted card" data-testid="history-admin-only">
        The history of a definition is kept in an admin-only collection: sign in with an admin key to see it.
      </p>
    );
  const versions = (data ?? []).slice(0, PAGE).flatMap((r) => toVersion(r) ?? []);
  const more = (data?.length ?? 0) > PAGE;
  const current = versions.find((v) => v.id === selected);

  const restore = async (v: Version) => {
    await api('PUT', `/api/functions/${enc(fn.id)}`, v.definition);
    reload();
    onRestored(String(v.definition.label ?? fn.label));
  };

  return (
    <section aria-label="History">
      <ErrorBox error={error} />
      {loading && !data && <Loading what="the history" />}
      {data && versions.length === 0 && skip === 0 && (
        <p class="muted">No earlier versions: each save that replaces this definition keeps the one it replaces.</p>
      )}
      {versions.length > 0 && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Earlier versions">
          <table class="data" data-testid="history">
            <caption class="visually-hidden">Earlier versions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Saved</th>
                <th scope="col">Replaced</th>
                <th scope="col">Label</th>
                <th scope="col">Steps</th>
                <th scope="col">Look</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.id} data-version={v.id} aria-current={v.id === selected ? 'true' : undefined}>
                  <td>{when(v.savedAt)}</td>
                  <td>{when(v.replacedAt)}</td>
                  <td>{v.label}</td>
                  <td class="num">{Array.isArray(v.definition.functions) ? v.definition.functions.length : '—'}</td>
                  <td>
                    <div class="actions">
                      <a href={hrefWith(fn, query, { version: v.id, show: 'diff' })}>Compare</a>
                      <a href={hrefWith(fn, query, { version: v.id, show: 'json' })}>View</a>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(skip > 0 || more) && (
        <nav class="pager" aria-label="History pages">
          {skip > 0 && <a href={hrefWith(fn, query, { skip: String(Math.max(0, skip - PAGE)) })}>Newer</a>}
          <span class="muted">
            Versions {skip + 1}–{skip + versions.length}
          </span>
          {more && <a href={hrefWith(fn, query, { skip: String(skip + PAGE) })}>Older</a>}
        </nav>
      )}
      {selected && !current && data && <p class="muted">That version is not on this page of the history.</p>}
      {current && <VersionView fn={fn} version={current} show={show} restore={() => restore(current)} />}
    </section>
  );
}

function VersionView({
  fn,
  version,
  show,
  restore,
}: {
  fn: StoredFunction;
  version: Version;
  show: 'diff' | 'json';
  restore: () => Promise<void>;
}) {
  const [error, setError] = useState<unknown>(null);
  const old = definitionText(version.definition);
  const diff = show === 'diff' ? lineDiff(old, definitionText(fn)) : [];
  return (
    <div class="card version" data-testid="version">
      <div class="row version-head">
        <h2 class="small">
          Version saved {when(version.savedAt)}
          {show === 'diff' ? ', compared with the current definition' : ''}
        </h2>
        <ConfirmButton
          label="Restore this version"
          question={`Save the version of ${when(version.savedAt)} as the current definition of '${fn.label}'? The current one goes to the history.`}
          confirmLabel="Restore"
          danger={false}
          onConfirm={async () => {
            setError(null);
            await restore().catch(setError);
          }}
        />
      </div>
      <ErrorBox error={error} />
      {show === 'json' ? (
        <pre class="json" tabIndex={0} aria-label="The version as JSON">
          {old}
        </pre>
      ) : unchanged(diff) ? (
        <p class="muted">This version is the same as the current definition.</p>
      ) : (
        <pre class="json diff" tabIndex={0} aria-label="Differences: lines removed since this version and added">
          {folded(diff).map((d, i) =>
            d.kind === 'fold' ? (
              <div key={i} class="diff-fold">
                ⋯ {d.count} unchanged lines
              </div>
            ) : (
              <div key={i} class={`diff-${d.kind}`}>
                <span class="diff-sign" aria-hidden="true">
                  {d.kind === 'added' ? '+' : d.kind === 'removed' ? '−' : ' '}
                </span>
                {d.kind !== 'same' && <span class="visually-hidden">{d.kind}: </span>}
                {d.text}
              </div>
            ),
          )}
        </pre>
      )}
    </div>
  );
}
