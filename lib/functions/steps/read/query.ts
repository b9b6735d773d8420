/**
 * Query: the working records become a collection's records matching
 * `filter`, ordered by `sort`, after `skip`, at most `limit` (protocol.md
 * 2.4 and 4.3). Go's `offset` is `skip`. `select_fields`, `exclude_fields`
 * and `join` work as in POST /api/find. Everything without placeholders is
 * parsed at save; `filter`, `limit` and `skip` may hold them.
 */
import { parseFieldList, parseJoin, parseSort, type Filter, type Join, type Query, type SortKey } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import type { Template } from '../../templates/index.js';
import { collectionMember } from '../shared/collection-member.js';
import { optionalCount, resolveCount, type CountMember } from '../shared/count-member.js';
import { optionalFilter, resolveFilter, type FilterMember } from '../shared/filter-member.js';
import { step, type MemberReader } from '../step.js';

interface QueryConfig {
  readonly collection: Template;
  readonly filter?: FilterMember;
  readonly limit?: CountMember;
  readonly skip?: CountMember;
  /** Everything but filter, limit and skip, parsed at save. */
  readonly fixed: Omit<Query, 'filter' | 'limit' | 'skip'>;
}

export const query = step<QueryConfig>({
  type: 'Query',
  access: 'read',
  compile: (m) => {
    const filter = optionalFilter(m, 'filter');
    const limit = optionalCount(m, 'limit');
    const skip = optionalCount(m, ['skip', 'offset']);
    return {
      collection: collectionMember(m),
      ...(filter ? { filter } : {}),
      ...(limit ? { limit } : {}),
      ...(skip ? { skip } : {}),
      fixed: fixedParts(m),
    };
  },
  run: (cfg, rows, x) => {
    const row = rows[0];
    const q: { -readonly [K in keyof Query]: Query[K] } = { ...cfg.fixed, skip: cfg.skip ? resolveCount(cfg.skip, x, row) : 0 };
    if (cfg.filter) q.filter = resolveFilter(cfg.filter, x, row) satisfies Filter;
    if (cfg.limit) q.limit = resolveCount(cfg.limit, x, row);
    return x.session.find(x.text(cfg.collection, row, 'collection'), q);
  },
});

function fixedParts(m: MemberReader): QueryConfig['fixed'] {
  const at = <T>(name: string, parse: (raw: unknown) => T): T => atPath(`${m.path}.${name}`, () => parse(m.raw(name)));
  const sort: readonly SortKey[] = Object.freeze(at('sort', (raw) => parseSort(raw)));
  const select = at('select_fields', (raw) => parseFieldList(raw, 'select_fields'));
  const exclude = at('exclude_fields', (raw) => parseFieldList(raw, 'exclude_fields'));
  const join: Join | undefined = at('join', (raw) => (raw === undefined || raw === null ? undefined : parseJoin(raw)));
  return {
    sort,
    bypassCache: false,
    bypassRipple: false,
    ...(select ? { selectFields: Object.freeze(select) } : {}),
    ...(exclude ? { excludeFields: Object.freeze(exclude) } : {}),
    ...(join ? { join } : {}),
  };
}
