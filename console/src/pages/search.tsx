/**
 * Search a collection (POST /api/search/{c}): text (BM25), vector (nearest neighbours) or hybrid, with scores and
 * the query's terms marked in the matched fields (search-results.tsx). A vector is typed as a JSON array, or made
 * from the query text by the server's embedder (POST /api/embed). The whole form lives in the URL.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { canUseCollection, NOT_ALLOWED, useAccess } from '../access.js';
import { ErrorBox, Loading } from '../components.js';
import { useCollectionNames } from '../hooks.js';
import { navigate } from '../router.js';
import { queryTerms, SearchResults, type SearchAnswer } from './search-results.js';
import './search.css';

type Mode = 'text' | 'vector' | 'hybrid';
const MODES: { id: Mode; label: string }[] = [
  { id: 'text', label: 'Text' },
  { id: 'vector', label: 'Vector' },
  { id: 'hybrid', label: 'Hybrid' },
];

interface Form {
  collection: string;
  mode: Mode;
  q: string;
  vector: string;
  embed: boolean;
  fields: string;
  vectorField: string;
  limit: string;
  minScore: string;
  fuzzy: boolean;
  textWeight: string;
  vectorWeight: string;
}

/** URL parameter of each form member (short, so links stay readable). */
const PARAMS: Record<keyof Form, string> = {
  collection: 'c',
  mode: 'mode',
  q: 'q',
  vector: 'v',
  embed: 'embed',
  fields: 'fields',
  vectorField: 'vf',
  limit: 'limit',
  minScore: 'min',
  fuzzy: 'fuzzy',
  textWeight: 'tw',
  vectorWeight: 'vw',
};

function readForm(query: URLSearchParams): Form {
  const get = (k: keyof Form) => query.get(PARAMS[k]) ?? '';
  const mode = get('mode');
  return {
    collection: get('collection'),
    mode: mode === 'vector' || mode === 'hybrid' ? mode : 'text',
    q: get('q'),
    vector: get('vector'),
    embed: get('embed') === '1',
    fields: get('fields'),
    vectorField: get('vectorField'),
    limit: get('limit'),
    minScore: get('minScore'),
    fuzzy: get('fuzzy') === '1',
    textWeight: get('textWeight'),
    vectorWeight: get('vectorWeight'),
  };
}

function formHref(form: Form): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(form) as [keyof Form, string | boolean][]) {
    if (v === true) q.set(PARAMS[k], '1');
    else if (typeof v === 'string' && v.trim() !== '' && !(k === 'mode' && v === 'text')) q.set(PARAMS[k], v.trim());
  }
  const qs = q.toString();
  return `/search${qs ? '?' + qs : ''}`;
}

const usesText = (f: Form) => f.mode !== 'vector';
const usesVector = (f: Form) => f.mode !== 'text';

/** True when the form says enough to search. */
function ready(f: Form): boolean {
  if (!f.collection) return false;
  if (usesText(f) && !f.q.trim()) return false;
  if (usesVector(f) && !(f.embed ? f.q.trim() : f.vector.trim())) return false;
  return true;
}

function numberMember(text: string, name: string): number | undefined {
  if (!text.trim()) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number.`);
  return n;
}

/** The vector to search with: embedded from the query text by the server, or parsed from the JSON typed. */
async function vectorOf(f: Form): Promise<number[]> {
  if (f.embed) {
    const { embeddings } = await api<{ embeddings: number[][] }>('POST', '/api/embed', { text: f.q });
    return embeddings[0]!;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(f.vector);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((x) => typeof x === 'number'))
    throw new Error('The vector must be a JSON array of numbers, such as [0.1, 0.2, 0.3].');
  return parsed as number[];
}

/** The search request for a form (embedding the text first when asked to). */
async function requestBody(f: Form): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  if (usesText(f)) body.query = f.q;
  if (usesVector(f)) {
    body.vector = await vectorOf(f);
    if (f.vectorField.trim()) body.vector_field = f.vectorField.trim();
  }
  const fields = f.fields
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (fields.length) body.fields = fields;
  const numbers: [keyof Form, string, string][] = [
    ['limit', 'limit', 'Limit'],
    ['minScore', 'min_score', 'Minimum score'],
    ['textWeight', 'text_weight', 'Text weight'],
    ['vectorWeight', 'vector_weight', 'Vector weight'],
  ];
  for (const [k, member, label] of numbers) {
    if (f.mode !== 'hybrid' && (k === 'textWeight' || k === 'vectorWeight')) continue;
    const n = numberMember(f[k] as string, label);
    if (n !== undefined) body[member] = n;
  }
  if (f.fuzzy && usesText(f)) body.fuzzy = true;
  return body;
}

/**
 * The answer to the search `key` names. The state remembers which search it answers, so that on the render after
 * the address changed, before the new request starts, the last search's results are not shown as this one's.
 */
function useSearch(form: Form, key: string): { answer?: SearchAnswer; error: unknown; loading: boolean } {
  const [state, setState] = useState<{ key: string; answer?: SearchAnswer; error: unknown; loading: boolean }>({
    key: '',
    error: null,
    loading: false,
  });
  useEffect(() => {
    if (!ready(form)) {
      setState({ key, error: null, loading: false });
      return;
    }
    let live = true;
    setState({ key, error: null, loading: true });
    requestBody(form)
      .then((body) => api<SearchAnswer>('POST', `/api/search/${enc(form.collection)}`, body))
      .then(
        (answer) => live && setState({ key, answer, error: null, loading: false }),
        (error: unknown) => live && setState({ key, error, loading: false }),
      );
    return () => {
      live = false;
    };
  }, [key]);
  return state.key === key ? state : { error: null, loading: ready(form) };
}

export function Search({ query }: { query: URLSearchParams }) {
  const applied = readForm(query);
  const key = formHref(applied);
  const [form, setForm] = useState(applied);
  useEffect(() => setForm(applied), [key]);
  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });
  const { names, error: namesError } = useCollectionNames();
  const access = useAccess();
  const mayRead = !form.collection || !access || canUseCollection(access, form.collection, 'read');
  const result = useSearch(applied, key);
  const terms = usesText(applied) ? queryTerms(applied.q) : [];

  return (
    <main id="main" class="search-page">
      <h1>Search</h1>
      <form
        class="card search-form"
        aria-label="Search"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(formHref(form));
        }}
      >
        <div class="row">
          <span class="search-line">
            <label for="search-collection">Collection</label>
            <select
              id="search-collection"
              value={form.collection}
              onChange={(e) => set({ collection: e.currentTarget.value })}
            >
              <option value="">Choose…</option>
              {(names ?? [])
                .concat(names?.includes(form.collection) || !form.collection ? [] : [form.collection])
                .map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
            </select>
          </span>
          <fieldset class="search-modes">
            <legend>Mode</legend>
            {MODES.map((m) => (
              <label key={m.id}>
                <input
                  type="radio"
                  name="search-mode"
                  value={m.id}
                  checked={form.mode === m.id}
                  onChange={() => set({ mode: m.id })}
                />{' '}
                {m.label}
              </label>
            ))}
          </fieldset>
        </div>
        {(usesText(form) || form.embed) && (
          <div class="search-line">
            <label for="search-q">{usesText(form) ? 'Query' : 'Text to embed'}</label>
            <input
              id="search-q"
              type="search"
              placeholder="words to find"
              value={form.q}
              onInput={(e) => set({ q: e.currentTarget.value })}
            />
          </div>
        )}
        {usesVector(form) && (
          <>
            {!form.embed && (
              <div class="search-line">
                <label for="search-vector">Vector (JSON array of numbers)</label>
                <textarea
                  id="search-vector"
                  rows={2}
                  spellcheck={false}
                  placeholder="[0.1, 0.2, 0.3]"
                  value={form.vector}
                  onInput={(e) => set({ vector: e.currentTarget.value })}
                />
              </div>
            )}
            <label class="search-check">
              <input type="checkbox" checked={form.embed} onChange={(e) => set({ embed: e.currentTarget.checked })} />{' '}
              {form.mode === 'hybrid' ? 'Embed the query text' : 'Embed text instead'} on the server{' '}
              <span class="muted small">
                (the built-in offline embedder gives 384 dimensions; a configured provider its own)
              </span>
            </label>
          </>
        )}
        <details class="search-options" open={Boolean(form.fields || form.limit || form.minScore || form.vectorField)}>
          <summary>Options</summary>
          <div class="search-grid">
            {usesText(form) && (
              <>
                <label for="search-fields">Fields (comma-separated; all text fields when empty)</label>
                <input id="search-fields" value={form.fields} onInput={(e) => set({ fields: e.currentTarget.value })} />
              </>
            )}
            {usesVector(form) && (
              <>
                <label for="search-vf">Vector field</label>
                <input
                  id="search-vf"
                  placeholder="embedding"
                  value={form.vectorField}
                  onInput={(e) => set({ vectorField: e.currentTarget.value })}
                />
              </>
            )}
            <label for="search-limit">Limit</label>
            <input
              id="search-limit"
              inputMode="numeric"
              placeholder="server default"
              value={form.limit}
              onInput={(e) => set({ limit: e.currentTarget.value })}
            />
            <label for="search-min">Minimum score</label>
            <input
              id="search-min"
              inputMode="decimal"
              placeholder="none"
              value={form.minScore}
              onInput={(e) => set({ minScore: e.currentTarget.value })}
            />
            {form.mode === 'hybrid' && (
              <>
                <label for="search-tw">Text weight</label>
                <input
                  id="search-tw"
                  inputMode="decimal"
                  value={form.textWeight}
                  onInput={(e) => set({ textWeight: e.currentTarget.value })}
                />
                <label for="search-vw">Vector weight</label>
                <input
                  id="search-vw"
                  inputMode="decimal"
                  value={form.vectorWeight}
                  onInput={(e) => set({ vectorWeight: e.currentTarget.value })}
                />
              </>
            )}
          </div>
          {usesText(form) && (
            <label class="search-check">
              <input type="checkbox" checked={form.fuzzy} onChange={(e) => set({ fuzzy: e.currentTarget.checked })} />{' '}
              Fuzzy (tolerate typos)
            </label>
          )}
        </details>
        <div class="actions">
          <button type="submit" disabled={!ready(form) || !mayRead} title={mayRead ? undefined : NOT_ALLOWED}>
            Search
          </button>
        </div>
      </form>
      <ErrorBox error={namesError} />
      <section aria-labelledby="search-results-title" aria-busy={result.loading}>
        <h2 id="search-results-title" class="small">
          Results
          {result.answer && !result.loading && (
            <span class="muted" data-testid="search-summary">
              {' '}
              {result.answer.results.length} shown of {result.answer.total} in {result.answer.execution_time_ms} ms
            </span>
          )}
        </h2>
        {!ready(applied) && <p class="muted">Choose a collection and enter a query, then search.</p>}
        {result.loading && <Loading what="results" />}
        <ErrorBox error={result.error} />
        {result.answer && !result.loading && result.answer.results.length === 0 && (
          <p class="muted">No matches. Try fewer words, fuzzy matching or a lower minimum score.</p>
        )}
        {result.answer && !result.loading && result.answer.results.length > 0 && (
          <SearchResults collection={applied.collection} answer={result.answer} terms={terms} />
        )}
      </section>
    </main>
  );
}
