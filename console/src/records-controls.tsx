/**
 * The records view's smaller controls: which fields are shown (select_fields / exclude_fields), the sort keys in
 * priority order, and the pager with a page-number jump (skip is cheap enough to jump anywhere in a million).
 */
import { useState } from 'preact/hooks';
import { PAGE_SIZES, type Projection, type SortKey } from './records-query.js';

export function ProjectionForm({
  projection,
  sort,
  fields,
  onProjection,
  onSort,
}: {
  projection: Projection;
  sort: SortKey[];
  fields: string[];
  onProjection: (p: Projection) => void;
  onSort: (s: SortKey[]) => void;
}) {
  const [mode, setMode] = useState(projection.mode);
  const [chosen, setChosen] = useState<string[]>(projection.fields);
  const [extra, setExtra] = useState('');
  const [sortField, setSortField] = useState('');
  const [sortAsc, setSortAsc] = useState(true);
  const [seen, setSeen] = useState(JSON.stringify(projection));
  if (seen !== JSON.stringify(projection)) {
    setSeen(JSON.stringify(projection));
    setMode(projection.mode);
    setChosen(projection.fields);
  }
  const all = [...new Set([...fields, ...chosen])];
  const toggle = (f: string, on: boolean) => setChosen(on ? [...chosen, f] : chosen.filter((c) => c !== f));
  const addExtra = () => {
    const names = extra
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s && !chosen.includes(s));
    setChosen([...chosen, ...names]);
    setExtra('');
  };
  const summary = [
    projection.mode === 'all'
      ? 'all fields'
      : `${projection.mode === 'select' ? 'only' : 'all but'} ${projection.fields.join(', ')}`,
    sort.length ? `sorted by ${sort.map((k) => `${k.field} ${k.ascending ? '▲' : '▼'}`).join(', ')}` : 'stored order',
  ].join('; ');
  return (
    <details class="card view-box" open={projection.mode !== 'all' || sort.length > 0}>
      <summary>
        Fields and sort <span class="muted small">({summary})</span>
      </summary>
      <div class="view-controls">
        <form
          aria-label="Fields shown"
          onSubmit={(e) => {
            e.preventDefault();
            onProjection({ mode: chosen.length ? mode : 'all', fields: mode === 'all' ? [] : chosen });
          }}
        >
          <fieldset>
            <legend>Fields shown</legend>
            <div class="row">
              {(['all', 'select', 'exclude'] as const).map((m) => (
                <label key={m}>
                  <input type="radio" name="projection" checked={mode === m} onChange={() => setMode(m)} />{' '}
                  {m === 'all' ? 'All fields' : m === 'select' ? 'Only these' : 'All but these'}
                </label>
              ))}
            </div>
            {mode !== 'all' && (
              <>
                <div class="row field-checks">
                  {all.map((f) => (
                    <label key={f}>
                      <input
                        type="checkbox"
                        checked={chosen.includes(f)}
                        onChange={(e) => toggle(f, e.currentTarget.checked)}
                      />{' '}
                      {f}
                    </label>
                  ))}
                </div>
                <div class="row">
                  <label for="projection-extra">Other fields</label>
                  <input
                    id="projection-extra"
                    placeholder="a, b.c"
                    value={extra}
                    onInput={(e) => setExtra(e.currentTarget.value)}
                  />
                  <button type="button" class="secondary" onClick={addExtra}>
                    Add
                  </button>
                </div>
              </>
            )}
            <div class="actions">
              <button type="submit">Apply fields</button>
            </div>
          </fieldset>
        </form>
        <form
          aria-label="Sort"
          onSubmit={(e) => {
            e.preventDefault();
            const field = sortField.trim();
            if (!field) return;
            onSort([...sort.filter((s) => s.field !== field), { field, ascending: sortAsc }]);
            setSortField('');
          }}
        >
          <fieldset>
            <legend>Sort</legend>
            {sort.length === 0 ? (
              <p class="muted small">Stored order. Press a column's header to sort by it.</p>
            ) : (
              <ol class="sort-keys" data-testid="sort-keys">
                {sort.map((s, i) => (
                  <li key={s.field}>
                    <code>{s.field}</code> {s.ascending ? 'ascending' : 'descending'}{' '}
                    <button
                      type="button"
                      class="link"
                      onClick={() => onSort(sort.map((k, j) => (j === i ? { ...k, ascending: !k.ascending } : k)))}
                    >
                      Reverse {s.field}
                    </button>
                    <button type="button" class="link" onClick={() => onSort(sort.filter((_, j) => j !== i))}>
                      Remove {s.field}
                    </button>
                  </li>
                ))}
              </ol>
            )}
            <div class="row">
              <input
                aria-label="Sort by field"
                placeholder="field"
                list="filter-fields"
                value={sortField}
                onInput={(e) => setSortField(e.currentTarget.value)}
              />
              <select
                aria-label="Sort direction"
                value={sortAsc ? 'asc' : 'desc'}
                onChange={(e) => setSortAsc(e.currentTarget.value === 'asc')}
              >
                <option value="asc">ascending</option>
                <option value="desc">descending</option>
              </select>
              <button type="submit" class="secondary">
                {sort.length ? 'Then by' : 'Sort by'}
              </button>
            </div>
          </fieldset>
        </form>
      </div>
    </details>
  );
}

/** Previous / next, first / last when the total is known, a page number to jump to, and the page size. */
export function Pager({
  skip,
  limit,
  shown,
  more,
  total,
  onPage,
}: {
  skip: number;
  limit: number;
  shown: number;
  more: boolean;
  /** The number of records when known (no filter); the last page is then reachable. */
  total?: number;
  onPage: (skip: number, limit: number) => void;
}) {
  const pageNo = Math.floor(skip / limit) + 1;
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / limit));
  const [jump, setJump] = useState(String(pageNo));
  const [seen, setSeen] = useState(pageNo);
  if (seen !== pageNo) {
    setSeen(pageNo);
    setJump(String(pageNo));
  }
  const toPage = (p: number) => onPage((Math.max(1, p) - 1) * limit, limit);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" disabled={skip === 0} onClick={() => toPage(1)}>
        First
      </button>
      <button
        type="button"
        class="secondary"
        disabled={skip === 0}
        onClick={() => onPage(Math.max(0, skip - limit), limit)}
      >
        Previous
      </button>
      <span class="muted" data-testid="range">
        {shown ? `${(skip + 1).toLocaleString('en')}–${(skip + shown).toLocaleString('en')}` : ''}
        {shown && total !== undefined ? ` of ${total.toLocaleString('en')}` : ''}
      </span>
      <button type="button" class="secondary" disabled={!more} onClick={() => onPage(skip + limit, limit)}>
        Next
      </button>
      {pages !== undefined && (
        <button type="button" class="secondary" disabled={pageNo >= pages} onClick={() => toPage(pages)}>
          Last
        </button>
      )}
      <form
        class="row"
        aria-label="Go to page"
        onSubmit={(e) => {
          e.preventDefault();
          const p = Math.floor(Number(jump));
          if (p >= 1) toPage(pages === undefined ? p : Math.min(p, pages));
        }}
      >
        <label for="page-number">Page</label>
        <input
          id="page-number"
          class="page-number"
          type="number"
          min={1}
          max={pages}
          value={jump}
          onInput={(e) => setJump(e.currentTarget.value)}
        />
        {pages !== undefined && <span class="muted">of {pages.toLocaleString('en')}</span>}
        <button type="submit" class="secondary">
          Go
        </button>
      </form>
      <label>
        Per page{' '}
        <select value={String(limit)} onChange={(e) => onPage(0, Number(e.currentTarget.value))}>
          {PAGE_SIZES.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </label>
    </nav>
  );
}
