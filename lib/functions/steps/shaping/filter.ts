/**
 * Filter (TypeScript client): keeps the working records that match `filter`,
 * a QueryExpression evaluated by the engine's own matcher, so it means what
 * the same filter means in a Query. Placeholders resolve once per call,
 * against the parameters and the first working record.
 */
import { matchFilter } from '../../../engine/index.js';
import { requiredFilter, resolveFilter, type FilterMember } from '../shared/filter-member.js';
import { step } from '../step.js';

export const filter = step<FilterMember>({
  type: 'Filter',
  access: 'none',
  compile: (m) => requiredFilter(m, 'filter'),
  run: (cfg, rows, x) => {
    const f = resolveFilter(cfg, x, rows[0]);
    return rows.filter((row) => matchFilter(f, row));
  },
});
