/**
 * Update: merges `updates` (an object with placeholders, or a Parameter
 * reference) into every record of `collection` matching `filter`, all or
 * none; `ttl` resets their expiry. In a transactional function the filter
 * sees the function's earlier staged writes. The working records become
 * the updated records (none when nothing matched).
 */
import { step } from '../step.js';
import { requiredFilter, resolveFilter, type FilterMember } from '../shared/filter-member.js';
import { collectionOf, compileBody, compileTarget, resolveBody, type BodyMember, type WriteTarget } from './write-members.js';

interface UpdateConfig {
  readonly target: WriteTarget;
  readonly filter: FilterMember;
  readonly updates: BodyMember;
}

export const update = step<UpdateConfig>({
  type: 'Update',
  access: 'write',
  compile: (m) => ({ target: compileTarget(m), filter: requiredFilter(m, 'filter'), updates: compileBody(m, 'updates') }),
  run: (cfg, rows, x) => {
    const row = rows[0];
    const collection = collectionOf(cfg.target, x, row);
    return x.session.updateWhere(collection, resolveFilter(cfg.filter, x, row), resolveBody(cfg.updates, x, row), cfg.target.bypassRipple);
  },
});
