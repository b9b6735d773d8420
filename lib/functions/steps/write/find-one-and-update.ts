/**
 * FindOneAndUpdate: merges `updates` into one record and returns it. The
 * record is `record_id` (TypeScript and Go clients) or the first record in
 * scan order matching `filter` (the Rust client's spelling); one of the two
 * is required. Found and updated in one statement. The working records
 * become the updated record, or none when no record was found (find-one
 * semantics: not an error).
 */
import { NotFound } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { requiredFilter, resolveFilter, type FilterMember } from '../shared/filter-member.js';
import { collectionOf, compileBody, compileTarget, resolveBody, type BodyMember, type WriteTarget } from './write-members.js';

interface FindOneAndUpdateConfig {
  readonly target: WriteTarget;
  readonly match: { readonly recordId: Template } | { readonly filter: FilterMember };
  readonly updates: BodyMember;
}

export const findOneAndUpdate = step<FindOneAndUpdateConfig>({
  type: 'FindOneAndUpdate',
  access: 'write',
  compile: (m) => {
    if (m.has('record_id') && m.has('filter')) m.fail("give either 'record_id' or 'filter', not both");
    const match = m.has('filter') ? { filter: requiredFilter(m, 'filter') } : { recordId: m.template('record_id') };
    return { target: compileTarget(m), match, updates: compileBody(m, 'updates') };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const collection = collectionOf(cfg.target, x, row);
    const updates = resolveBody(cfg.updates, x, row);
    if ('filter' in cfg.match) {
      return x.session.updateWhere(collection, resolveFilter(cfg.match.filter, x, row), updates, cfg.target.bypassRipple, 1);
    }
    const id = x.text(cfg.match.recordId, row, 'record_id');
    try {
      return [await x.session.update(collection, id, updates, cfg.target.bypassRipple)];
    } catch (err) {
      if (err instanceof NotFound) return [];
      throw err;
    }
  },
});
