/**
 * Records of a collection, one page at a time: POST /api/find/{c} with limit and skip (never the whole
 * collection; the total comes from GET /api/collections/{c}), a filter builder with And / Or / Not groups, sort by
 * column, a projection, insert, import and export, and delete from the table. All of the view's state lives in the
 * URL (records-query.ts), so a view can be bookmarked. The page follows the collection's change feed: a change
 * re-reads the count and the page, and records inserted meanwhile are marked.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { canUseCollection, NOT_ALLOWED, useAccess } from '../access.js';
import { ErrorBox, Loading } from '../components.js';
import { FilterBuilder, filterParam } from '../filter-builder.js';
import { apiText } from '../raw-api.js';
import { parseExact, stringifyExact } from '../json-text.js';
import { navigate } from '../router.js';
import { nextSort, pageRequest, queryHref, readQuery, readsFromEnd, type RecordsQuery } from '../records-query.js';
import { columnsOf, RecordsTable, type Rec } from '../records-table.js';
import { ProjectionForm, Pager } from '../records-controls.js';
import { ExportPanel } from './import-export.js';
import { TrashNotice } from './record.js';
import { useChangeFeed } from '../change-feed.js';
import './records.css';

interface CollectionInfo {
  record_count: number;
  collection?: { fields?: Record<string, unknown> };
}

export function Records({ collection, query }: { collection: string; query: URLSearchParams }) {
  const q = readQuery(query);
  const access = useAccess();
  const canWrite = canUseCollection(access, collection, 'write');
  const writeTitle = access && !canWrite ? NOT_ALLOWED : undefined;
  const [info, setInfo] = useState<CollectionInfo | undefined>(undefined);
  const [page, setPage] = useState<{ rows: Rec[]; more: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [deleted, setDeleted] = useState<string | undefined>(undefined);
  const [tick, setTick] = useState(0);
  // Live: committed changes to the collection re-read the count and the page quietly (no loading flash), and
  // records inserted since the page opened are marked.
  const [liveTick, setLiveTick] = useState(0);
  const [fresh, setFresh] = useState<{ collection: string; ids: Set<string> }>({ collection, ids: new Set() });
  const freshIds = fresh.collection === collection ? fresh.ids : undefined;
  const quiet = useRef(false);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const feed = useChangeFeed(canUseCollection(access, collection, 'read') ? collection : undefined, (change) => {
    if (change.event === 'insert')
      setFresh((f) => ({
        collection,
        ids: new Set([...(f.collection === collection ? f.ids : []), ...change.ids]),
      }));
    // A burst of changes is read once, a quarter second after its first.
    pending.current ??= setTimeout(() => {
      pending.current = undefined;
      quiet.current = true;
      setLiveTick((n) => n + 1);
    }, 250);
  });
  useEffect(() => () => clearTimeout(pending.current), []);
  const go = (next: Partial<RecordsQuery>) => navigate(queryHref(collection, { ...q, ...next }));
  const bodyKey = JSON.stringify([filterParam(q.filter), q.sort, q.projection]);

  useEffect(() => {
    let live = true;
    api<CollectionInfo>('GET', `/api/collections/${enc(collection)}`).then(
      (c) => live && setInfo(c),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [collection, tick, liveTick]);
  // A far page of a sorted view is read from the end, which needs the total first.
  const endTotal = readsFromEnd(q) ? info?.record_count : undefined;
  useEffect(() => {
    let live = true;
    if (!quiet.current) setPage(null);
    quiet.current = false;
    setError(null);
    if (readsFromEnd(q) && endTotal === undefined) return;
    let request: ReturnType<typeof pageRequest>;
    try {
      request = pageRequest(q, endTotal);
    } catch (err) {
      setError(err);
      return;
    }
    apiText('POST', `/api/find/${enc(collection)}`, stringifyExact(request.body)).then(
      (text) => {
        const rows = parseExact<Rec[]>(text);
        if (!live) return;
        if (request.reversed) setPage({ rows: rows.reverse(), more: q.skip + rows.length < endTotal! });
        else setPage({ rows: rows.slice(0, q.limit), more: rows.length > q.limit });
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [collection, q.skip, q.limit, bodyKey, tick, liveTick, endTotal]);

  const total = info?.record_count;
  const filtered = filterParam(q.filter) !== undefined;
  const schemaFields = Object.keys(info?.collection?.fields ?? {});
  // Every column seen in this collection, so a field hidden by the projection can still be chosen again.
  const seen = useRef({ collection, fields: new Set<string>() });
  if (seen.current.collection !== collection) seen.current = { collection, fields: new Set() };
  for (const c of columnsOf(page?.rows ?? [])) if (c !== 'id') seen.current.fields.add(c);
  const known = [...new Set([...schemaFields, ...seen.current.fields])];
  const onDelete = async (id: string) => {
    try {
      await api('DELETE', `/api/delete/${enc(collection)}/${enc(id)}`);
      setDeleted(id);
      setTick((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <main id="main" class="records-page">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/collections">Collections</a> / <span>{collection}</span>
      </nav>
      <div class="title-row">
        <h1>
          {collection}{' '}
          <span class="muted small" data-testid="total">
            {total === undefined ? '' : `${total.toLocaleString('en')} record${total === 1 ? '' : 's'}`}
          </span>{' '}
          {feed.state === 'live' && (
            <span class="status live small" data-testid="records-live" title="Changes appear as they are committed">
              Live
            </span>
          )}
        </h1>
        <div class="actions">
          <a class="button secondary" href={`/collections/${enc(collection)}/settings`}>
            Settings
          </a>
          <WriteLink href={`/collections/${enc(collection)}/new`} allowed={canWrite} title={writeTitle}>
            Insert record
          </WriteLink>
          <WriteLink href={`/collections/${enc(collection)}/import`} allowed={canWrite} title={writeTitle}>
            Import
          </WriteLink>
        </div>
      </div>
      {deleted && (
        <TrashNotice
          collection={collection}
          id={deleted}
          admin={access?.admin === true}
          onRestored={() => {
            setDeleted(undefined);
            setTick((n) => n + 1);
          }}
        />
      )}
      <FilterBuilder applied={q.filter} fields={known} onApply={(filter) => go({ filter, skip: 0 })} />
      <ProjectionForm
        projection={q.projection}
        sort={q.sort}
        fields={known}
        onProjection={(projection) => go({ projection })}
        onSort={(sort) => go({ sort, skip: 0 })}
      />
      <ErrorBox error={error} />
      {!page && !error && <Loading what="records" />}
      {page && page.rows.length === 0 && (
        <p class="muted">
          {filtered ? 'No record matches this filter.' : q.skip ? 'No records on this page.' : 'No records yet.'}
        </p>
      )}
      {page && page.rows.length > 0 && (
        <RecordsTable
          collection={collection}
          rows={page.rows}
          sort={q.sort}
          onSort={(field) => go({ sort: nextSort(q.sort, field), skip: 0 })}
          canWrite={canWrite}
          writeTitle={writeTitle}
          onDelete={onDelete}
          fresh={freshIds}
        />
      )}
      <Pager
        skip={q.skip}
        limit={q.limit}
        shown={page?.rows.length ?? 0}
        more={page?.more ?? false}
        total={filtered ? undefined : total}
        onPage={(skip, limit) => go({ skip, limit })}
      />
      <ExportPanel collection={collection} query={q} total={filtered ? undefined : total} />
    </main>
  );
}

/** A link to a writing page, or the same label disabled with the reason when the key may not write. */
function WriteLink({
  href,
  allowed,
  title,
  children,
}: {
  href: string;
  allowed: boolean;
  title?: string;
  children: string;
}) {
  return allowed ? (
    <a class="button" href={href}>
      {children}
    </a>
  ) : (
    <button type="button" disabled title={title ?? 'Checking what this key may do'}>
      {children}
    </button>
  );
}
