/**
 * The records view's state as it lives in the URL (so a view can be bookmarked): the filter tree (`f`), the sort
 * (`sort=age,-name`: a leading minus is descending), the projection (`select=a,b` or `exclude=c`), the page
 * (`skip`, `limit`). From it comes the body of POST /api/find/{c}.
 */
import { enc } from './api.js';
import { filterParam, readFilter, toServerFilter, type Group } from './filter-builder.js';

export const PAGE_SIZES = [10, 25, 50, 100];
const DEFAULT_LIMIT = 25;

export interface SortKey {
  field: string;
  ascending: boolean;
}

export interface Projection {
  mode: 'all' | 'select' | 'exclude';
  fields: string[];
}

export interface RecordsQuery {
  filter: Group;
  sort: SortKey[];
  projection: Projection;
  skip: number;
  limit: number;
}

const fieldList = (text: string | null) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function readQuery(query: URLSearchParams): RecordsQuery {
  const limit = Number(query.get('limit'));
  const select = fieldList(query.get('select'));
  const exclude = fieldList(query.get('exclude'));
  return {
    filter: readFilter(query.get('f')),
    sort: fieldList(query.get('sort')).map((s) =>
      s.startsWith('-') ? { field: s.slice(1), ascending: false } : { field: s, ascending: true },
    ),
    projection: select.length
      ? { mode: 'select', fields: select }
      : exclude.length
        ? { mode: 'exclude', fields: exclude }
        : { mode: 'all', fields: [] },
    skip: Math.max(0, Math.floor(Number(query.get('skip'))) || 0),
    limit: PAGE_SIZES.includes(limit) ? limit : DEFAULT_LIMIT,
  };
}

/** The console path of the records view in this state. */
export function queryHref(collection: string, q: RecordsQuery): string {
  const out = new URLSearchParams();
  const f = filterParam(q.filter);
  if (f) out.set('f', f);
  if (q.sort.length) out.set('sort', q.sort.map((s) => (s.ascending ? s.field : `-${s.field}`)).join(','));
  if (q.projection.mode !== 'all' && q.projection.fields.length)
    out.set(q.projection.mode, q.projection.fields.join(','));
  if (q.skip) out.set('skip', String(q.skip));
  if (q.limit !== DEFAULT_LIMIT) out.set('limit', String(q.limit));
  const qs = out.toString();
  return `/collections/${enc(collection)}${qs ? '?' + qs : ''}`;
}

/** The find body without paging (filter, sort, projection); throws when a filter value cannot be read. */
export function findBody(q: RecordsQuery): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const filter = toServerFilter(q.filter);
  if (filter !== undefined) body.filter = filter;
  // The id breaks ties, so that pages never overlap and the order reverses exactly (see pageRequest).
  if (q.sort.length)
    body.sort = q.sort.some((s) => s.field === 'id') ? q.sort : [...q.sort, { field: 'id', ascending: true }];
  if (q.projection.mode === 'select' && q.projection.fields.length) body.select_fields = q.projection.fields;
  if (q.projection.mode === 'exclude' && q.projection.fields.length) body.exclude_fields = q.projection.fields;
  return body;
}

/** The next sort when a column's header is pressed: ascending, then descending, then unsorted. */
export function nextSort(sort: SortKey[], field: string): SortKey[] {
  const current = sort.find((s) => s.field === field);
  if (!current) return [{ field, ascending: true }];
  if (current.ascending) return [{ field, ascending: false }];
  return [];
}

/** A sorted page further in than this, with the total known, is read from the other end (see pageRequest). */
const FAR = 10_000;

/** True when the page is best read backwards: sorted, unfiltered, and past FAR. */
export function readsFromEnd(q: RecordsQuery): boolean {
  return q.sort.length > 0 && toServerFilter(q.filter) === undefined && q.skip > FAR;
}

/**
 * The find body for one page, asking one record more than the page to learn whether another follows. A sorted
 * find holds every row up to skip + limit, so a page in the second half of a sorted collection is asked with the
 * sort reversed from the end (`reversed`: the rows come back last first).
 */
export function pageRequest(
  q: RecordsQuery,
  total: number | undefined,
): { body: Record<string, unknown>; reversed: boolean } {
  const base = findBody(q);
  if (!readsFromEnd(q) || total === undefined || q.skip + q.limit <= total / 2)
    return { body: { ...base, limit: q.limit + 1, skip: q.skip }, reversed: false };
  const keys = base.sort as SortKey[];
  const fromEnd = total - q.skip - q.limit;
  return {
    body: {
      ...base,
      sort: keys.map((s) => ({ field: s.field, ascending: !s.ascending })),
      skip: Math.max(0, fromEnd),
      limit: fromEnd < 0 ? Math.max(0, total - q.skip) : q.limit,
    },
    reversed: true,
  };
}
