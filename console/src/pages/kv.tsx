/**
 * Key-value: browse the store by key prefix or by regular expression, one page at a time (POST /api/kv/find with
 * limit and after; never the whole store), with each key's time to live counting down. The selected key opens
 * beside the list (kv-entry.tsx). The match, the page and the selected key live in the URL.
 */
import { useState, useEffect } from 'preact/hooks';
import { enc } from '../api.js';
import { canUseKv, NOT_ALLOWED, useAccess, type Access } from '../access.js';
import { ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import { Countdown } from '../ttl.js';
import { display, typeOf } from '../values.js';
import { escapeRegex, type KvFound } from '../kv.js';
import { KvEntry, KvNew } from './kv-entry.js';
import './kv.css';

const PAGE_SIZES = [25, 50, 100, 250];
const DEFAULT_LIMIT = 50;

/** What the list shows: keys starting with `text`, or matching it as a regular expression. */
export interface Browse {
  mode: 'prefix' | 'pattern';
  text: string;
  limit: number;
  after?: string;
}

/** The prefixes a restricted key is limited to (undefined when it may read every key). */
function grantedPrefixes(access: Access | null): string[] | undefined {
  return access && !access.admin ? access.kv_permissions?.prefixes : undefined;
}

function readBrowse(query: URLSearchParams, access: Access | null): Browse {
  const limit = PAGE_SIZES.includes(Number(query.get('limit'))) ? Number(query.get('limit')) : DEFAULT_LIMIT;
  const after = query.get('after') ?? undefined;
  const pattern = query.get('pattern');
  if (pattern !== null) return { mode: 'pattern', text: pattern, limit, after };
  // A key limited to prefixes starts at its first one: every other key would be refused anyway.
  const text = query.get('prefix') ?? grantedPrefixes(access)?.[0] ?? '';
  return { mode: 'prefix', text, limit, after };
}

/** The console path for a browse state, with a selected key (or the new-key form) when given. */
export function kvHref(browse: Browse, key?: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  if (browse.text || browse.mode === 'pattern') q.set(browse.mode, browse.text);
  if (browse.limit !== DEFAULT_LIMIT) q.set('limit', String(browse.limit));
  if (browse.after !== undefined) q.set('after', browse.after);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const qs = q.toString();
  return `/kv${key === undefined ? '' : '/' + enc(key)}${qs ? '?' + qs : ''}`;
}

function BrowseForm({ browse, prefixes }: { browse: Browse; prefixes: string[] | undefined }) {
  const [mode, setMode] = useState(browse.mode);
  const [text, setText] = useState(browse.text);
  const [limit, setLimit] = useState(browse.limit);
  useEffect(() => {
    setMode(browse.mode);
    setText(browse.text);
    setLimit(browse.limit);
  }, [browse.mode, browse.text, browse.limit]);
  return (
    <form
      class="card kv-browse"
      aria-label="Browse keys"
      onSubmit={(e) => {
        e.preventDefault();
        navigate(kvHref({ mode, text, limit }));
      }}
    >
      <div class="row">
        <span class="kv-pair">
          <label for="kv-mode">Match</label>
          <select id="kv-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as Browse['mode'])}>
            <option value="prefix">Keys starting with</option>
            <option value="pattern">Keys matching the pattern</option>
          </select>
        </span>
        <input
          id="kv-text"
          aria-label={mode === 'prefix' ? 'Key prefix' : 'Regular expression'}
          class="grow"
          placeholder={mode === 'prefix' ? 'app:' : '^cache:.*:v2$'}
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <span class="kv-pair">
          <label for="kv-limit">Per page</label>
          <select id="kv-limit" value={String(limit)} onChange={(e) => setLimit(Number(e.currentTarget.value))}>
            {PAGE_SIZES.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
          <button type="submit">Browse</button>
        </span>
      </div>
      {mode === 'pattern' && (
        <p class="muted small">An unanchored regular expression on the key (RE2 rules): use ^ and $ to anchor it.</p>
      )}
      {prefixes && (
        <p class="small">
          This API key may use keys starting with:{' '}
          {prefixes.map((p, i) => (
            <span key={p}>
              {i > 0 && ', '}
              <a href={kvHref({ mode: 'prefix', text: p, limit })}>
                <code>{p}</code>
              </a>
            </span>
          ))}
        </p>
      )}
    </form>
  );
}

function KeyTable({ entries, browse, selected }: { entries: KvFound[]; browse: Browse; selected?: string }) {
  return (
    <div class="scroll">
      <table class="data kv-keys">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col" class="num">
              Expires in
            </th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.key} data-key={e.key} class={e.key === selected ? 'selected' : undefined}>
              <td>
                <a href={kvHref(browse, e.key)} aria-current={e.key === selected ? 'true' : undefined}>
                  {e.key}
                </a>
              </td>
              <td class="num">
                <Countdown expiresAt={e.expires_at} />
              </td>
              <td>
                <span class="kv-preview">{display(e.value)}</span>
                <span class="type">{typeOf(e.value)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function KeyValue({ selected, query }: { selected?: string; query: URLSearchParams }) {
  const access = useAccess();
  const browse = readBrowse(query, access);
  const creating = selected === undefined && query.get('new') === '1';
  const mayRead = canUseKv(access, 'read');
  const mayWrite = canUseKv(access, 'write');
  const pattern = browse.mode === 'prefix' ? (browse.text ? '^' + escapeRegex(browse.text) : undefined) : browse.text;
  const body = { pattern: pattern || undefined, limit: browse.limit + 1, after: browse.after };
  const found = useApi<KvFound[]>(access && mayRead ? '/api/kv/find' : null, 'POST', body);
  const rows = found.data?.slice(0, browse.limit);
  const more = (found.data?.length ?? 0) > browse.limit;
  const last = rows?.[rows.length - 1]?.key;

  return (
    <main id="main" class="kv-page">
      <h1>Key-value</h1>
      <BrowseForm browse={browse} prefixes={grantedPrefixes(access)} />
      {access && !mayRead && <ErrorBox error={new Error('This API key may not use the key-value store.')} />}
      <div class={selected !== undefined || creating ? 'kv-split' : undefined}>
        <section aria-labelledby="kv-list-title">
          <div class="row kv-list-head">
            <h2 id="kv-list-title" class="small">
              {browse.mode === 'prefix' ? (
                browse.text ? (
                  <>
                    Keys starting with <code>{browse.text}</code>
                  </>
                ) : (
                  'All keys'
                )
              ) : (
                <>
                  Keys matching <code>{browse.text}</code>
                </>
              )}
              {browse.after !== undefined && (
                <>
                  {' '}
                  after <code>{browse.after}</code>
                </>
              )}
            </h2>
            {mayWrite ? (
              <a class="button" href={kvHref(browse, undefined, { new: '1' })}>
                New key
              </a>
            ) : (
              <button type="button" disabled title={NOT_ALLOWED}>
                New key
              </button>
            )}
          </div>
          <ErrorBox error={found.error} />
          {(found.loading || !access) && !found.error && <Loading what="keys" />}
          {rows && rows.length === 0 && !found.loading && <p class="muted">No keys here.</p>}
          {rows && rows.length > 0 && <KeyTable entries={rows} browse={browse} selected={selected} />}
          {rows && (
            <nav class="pager" aria-label="Pages of keys">
              <span class="muted small" data-testid="kv-count">
                {rows.length} key{rows.length === 1 ? '' : 's'} on this page{more ? '' : ', the last page'}
              </span>
              {browse.after !== undefined && <a href={kvHref({ ...browse, after: undefined })}>First page</a>}
              {more && last !== undefined && <a href={kvHref({ ...browse, after: last })}>Next page</a>}
            </nav>
          )}
        </section>
        {selected !== undefined && (
          <KvEntry key={selected} name={selected} listHref={kvHref(browse)} onChanged={found.reload} />
        )}
        {creating && (
          <KvNew
            prefix={browse.mode === 'prefix' ? browse.text : ''}
            entryHref={(key) => kvHref(browse, key)}
            onChanged={found.reload}
          />
        )}
      </div>
    </main>
  );
}
