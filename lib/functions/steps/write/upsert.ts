/**
 * Upsert (spec-only; no client builds it, so its members follow the other
 * write steps): updates the target when it exists, else inserts, in one
 * statement.
 *
 * - `collection`; `record` (an object with placeholders, or a Parameter
 *   reference); `bypass_ripple?`; `ttl?`.
 * - the target, at most one of: `record_id` (that record, by id or
 *   primary-key-alias value: merged into when live, else `record` is
 *   inserted under that id), or `filter` (every match is merged into; when
 *   none matches, `record` is inserted as given: values of the filter are
 *   not copied into it). Without either, the record's own `id` is the
 *   target, and a record without `id` is simply inserted.
 *
 * This is the clients' upsert (update, then insert on 404) done atomically.
 * The working records become the written records.
 */
import { isTypedWrapper } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { requiredFilter, resolveFilter, type FilterMember } from '../shared/filter-member.js';
import { collectionOf, compileBody, compileTarget, resolveBody, type BodyMember, type WriteTarget } from './write-members.js';

interface UpsertConfig {
  readonly target: WriteTarget;
  readonly match?: { readonly recordId: Template } | { readonly filter: FilterMember };
  readonly record: BodyMember;
}

export const upsert = step<UpsertConfig>({
  type: 'Upsert',
  access: 'write',
  compile: (m) => {
    if (m.has('record_id') && m.has('filter')) m.fail("give either 'record_id' or 'filter', not both");
    const match = m.has('filter') ? { filter: requiredFilter(m, 'filter') } : m.has('record_id') ? { recordId: m.template('record_id') } : undefined;
    return { target: compileTarget(m), record: compileBody(m, 'record'), ...(match ? { match } : {}) };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const collection = collectionOf(cfg.target, x, row);
    const record = resolveBody(cfg.record, x, row);
    const bypass = cfg.target.bypassRipple;
    if (cfg.match && 'filter' in cfg.match) return x.session.upsert(collection, { filter: resolveFilter(cfg.match.filter, x, row) }, record, bypass);
    const id = cfg.match ? x.text(cfg.match.recordId, row, 'record_id') : ownId(record.id);
    return id === undefined ? x.session.insertAll(collection, [record], bypass) : x.session.upsert(collection, { id }, record, bypass);
  },
});

/** The record's own id member (bare or a String wrapper), undefined when it has none. */
function ownId(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const v = isTypedWrapper(raw) ? raw.value : raw;
  if (typeof v !== 'string' || v === '') throw new InvalidInput("Upsert 'record.id' must be a non-empty string");
  return v;
}
