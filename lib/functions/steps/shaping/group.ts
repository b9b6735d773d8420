/**
 * Group: one record per distinct combination of `by_fields`, holding those
 * fields and one output per entry of `functions` ({output_field, operation,
 * input_field?}); see lib/functions/group for the eleven operations and the
 * grouping rules. Field names are literal and checked at save. Without
 * `by_fields` every working record falls in one group.
 */
import { compileGroup, groupRows, type GroupSpec } from '../../group/index.js';
import { step } from '../step.js';

export const group = step<GroupSpec>({
  type: 'Group',
  access: 'none',
  compile: (m) => {
    // Only the Group's own members go to compileGroup: other members are tolerated, as for every step.
    const body: Record<string, unknown> = { by_fields: m.raw('by_fields') ?? [], functions: m.raw('functions') };
    return compileGroup(body, m.path);
  },
  run: (spec, rows) => groupRows(rows, spec.by_fields, spec.functions),
});
