/**
 * Records of a collection: one page at a time (POST /api/find/{c} with limit and skip; never the whole
 * collection), a filter builder whose conditions are ANDed, and links to each record. The page, its size and the
 * filter live in the URL, so a view can be bookmarked.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ErrorBox, Loading } from '../components.js';
import { navigate } from '../router.js';
import { display, parseInput, typeOf } from '../values.js';

const OPERATORS = ['Eq', 'Ne', 'Gt', 'Gte', 'Lt', 'Lte', 'In', 'NotIn', 'Contains', 'StartsWith', 'EndsWith', 'Exists'];
const PAGE_SIZES = [10, 25, 50, 100];

interface Condition {
  field: string;
  operator: string;
  value: string;
}

type Rec = Record<string, unknown> & { id?: unknown };

function readConditions(text: string | null): Condition[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as Condition[]).filter((c) => typeof c?.field === 'string') : [];
  } catch {
    return [];
  }
}

/** The server's filter for these conditions: one Condition, or their And. */
function toFilter(conditions: Condition[]): unknown {
  const exprs = conditions.map((c) => {
    let value: unknown = parseInput(c.value);
    if (c.operator === 'In' || c.operator === 'NotIn')
      value = Array.isArray(value) ? value : c.value.split(',').map((s) => parseInput(s.trim()));
    if (c.operator === 'Exists') value = c.value.trim() === '' ? true : value;
    return { type: 'Condition', content: { field: c.field, operator: c.operator, value } };
  });
  if (exprs.length === 0) return undefined;
  return exprs.length === 1 ? exprs[0] : { type: 'Logical', content: { operator: 'And', expressions: exprs } };
}

export function Records({ collection, query }: { collection: string; query: URLSearchParams }) {
  const skip = Math.max(0, Number(query.get('skip')) || 0);
  const limit = PAGE_SIZES.includes(Number(query.get('limit'))) ? Number(query.get('limit')) : 25;
  const applied = query.get('f');
  const conditions = readConditions(applied);
  const [draft, setDraft] = useState<Condition[]>(conditions);
  const [page, setPage] = useState<{ rows: Rec[]; more: boolean } | null>(null);
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);

  const go = (next: { skip?: number; limit?: number; f?: Condition[] }) => {
    const q = new URLSearchParams();
    const f = next.f ?? conditions;
    if (f.length) q.set('f', JSON.stringify(f));
    const s = next.skip ?? skip;
    if (s) q.set('skip', String(s));
    const l = next.limit ?? limit;
    if (l !== 25) q.set('limit', String(l));
    const qs = q.toString();
    navigate(`/collections/${enc(collection)}${qs ? '?' + qs : ''}`);
  };

  useEffect(() => setDraft(readConditions(applied)), [applied]);
  useEffect(() => {
    let live = true;
    api<{ record_count: number }>('GET', `/api/collections/${enc(collection)}`).then(
      (c) => live && setTotal(c.record_count),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [collection]);
  useEffect(() => {
    let live = true;
    setPage(null);
    setError(null);
    const body: Record<string, unknown> = { limit: limit + 1, skip };
    const filter = toFilter(readConditions(applied));
    if (filter) body.filter = filter;
    api<Rec[]>('POST', `/api/find/${enc(collection)}`, body).then(
      (rows) => live && setPage({ rows: rows.slice(0, limit), more: rows.length > limit }),
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [collection, skip, limit, applied]);

  const columns: string[] = [];
  for (const r of page?.rows ?? []) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  columns.sort((a, b) => (a === 'id' ? -1 : b === 'id' ? 1 : 0));
  const update = (i: number, patch: Partial<Condition>) =>
    setDraft(draft.map((c, j) => (j === i ? { ...c, ...patch } : c)));

  return (
    <main id="main">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/collections">Collections</a> / <span>{collection}</span>
      </nav>
      <h1>
        {collection}{' '}
        <span class="muted small">
          {total === undefined ? '' : `${total.toLocaleString('en')} record${total === 1 ? '' : 's'}`}
        </span>
      </h1>
      <form
        class="filters card"
        aria-label="Filter"
        onSubmit={(e) => {
          e.preventDefault();
          go({ f: draft.filter((c) => c.field.trim()), skip: 0 });
        }}
      >
        <h2 class="small">Filter (all conditions must hold)</h2>
        {draft.map((c, i) => (
          <div class="condition" key={i}>
            <input
              aria-label={`Field of condition ${i + 1}`}
              placeholder="field"
              value={c.field}
              onInput={(e) => update(i, { field: e.currentTarget.value })}
            />
            <select
              aria-label={`Operator of condition ${i + 1}`}
              value={c.operator}
              onChange={(e) => update(i, { operator: e.currentTarget.value })}
            >
              {OPERATORS.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
            <input
              aria-label={`Value of condition ${i + 1}`}
              placeholder={c.operator === 'In' || c.operator === 'NotIn' ? 'a, b, c' : 'value (JSON or text)'}
              value={c.value}
              onInput={(e) => update(i, { value: e.currentTarget.value })}
            />
            <button
              type="button"
              class="secondary"
              aria-label={`Remove condition ${i + 1}`}
              onClick={() => setDraft(draft.filter((_, j) => j !== i))}
            >
              ×
            </button>
          </div>
        ))}
        <div class="actions">
          <button
            type="button"
            class="secondary"
            onClick={() => setDraft([...draft, { field: '', operator: 'Eq', value: '' }])}
          >
            Add condition
          </button>
          <button type="submit">Apply filter</button>
          {conditions.length > 0 && (
            <button type="button" class="secondary" onClick={() => go({ f: [], skip: 0 })}>
              Clear
            </button>
          )}
        </div>
      </form>
      <ErrorBox error={error} />
      {!page && !error && <Loading what="records" />}
      {page && page.rows.length === 0 && (
        <p class="muted">{conditions.length ? 'No record matches this filter.' : 'This collection has no records.'}</p>
      )}
      {page && page.rows.length > 0 && (
        <div class="scroll">
          <table class="data">
            <thead>
              <tr>
                {columns.map((c) => (
                  <th scope="col" key={c}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {page.rows.map((r) => {
                const id = String(r.id);
                return (
                  <tr key={id}>
                    {columns.map((c) => (
                      <td key={c} title={c in r ? typeOf(r[c]) : undefined}>
                        {c === 'id' ? (
                          <a href={`/collections/${enc(collection)}/records/${enc(id)}`}>{id}</a>
                        ) : c in r ? (
                          <>
                            {display(r[c])} <span class="type">{typeOf(r[c])}</span>
                          </>
                        ) : (
                          ''
                        )}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        <button
          type="button"
          class="secondary"
          disabled={skip === 0}
          onClick={() => go({ skip: Math.max(0, skip - limit) })}
        >
          Previous
        </button>
        <span class="muted">{page && page.rows.length ? `${skip + 1}–${skip + page.rows.length}` : ''}</span>
        <button type="button" class="secondary" disabled={!page?.more} onClick={() => go({ skip: skip + limit })}>
          Next
        </button>
        <label>
          Per page{' '}
          <select value={String(limit)} onChange={(e) => go({ limit: Number(e.currentTarget.value), skip: 0 })}>
            {PAGE_SIZES.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
      </div>
    </main>
  );
}
