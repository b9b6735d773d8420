/**
 * Delete: moves every record of `collection` matching `filter` to the
 * trash, all or none. In a transactional function the filter sees the
 * function's earlier staged writes. The working records become the deleted
 * records as they were (none when nothing matched).
 */
import { step } from '../step.js';
import { requiredFilter, resolveFilter, type FilterMember } from '../shared/filter-member.js';
import { collectionOf, compileTarget, type WriteTarget } from './write-members.js';

interface DeleteConfig {
  readonly target: WriteTarget;
  readonly filter: FilterMember;
}

export const deleteStep = step<DeleteConfig>({
  type: 'Delete',
  access: 'write',
  compile: (m) => ({ target: compileTarget(m), filter: requiredFilter(m, 'filter') }),
  run: (cfg, rows, x) => {
    const row = rows[0];
    return x.session.deleteWhere(collectionOf(cfg.target, x, row), resolveFilter(cfg.filter, x, row), cfg.target.bypassRipple);
  },
});
