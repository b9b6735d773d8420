/**
 * Sort (TypeScript client): orders the working records by `sort`
 * ([{field, ascending}], first key first), with the engine's order across
 * value kinds; stable, missing values first when ascending.
 */
import { parseSort, sortRecords, type SortKey } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import { step } from '../step.js';

export const sort = step<readonly SortKey[]>({
  type: 'Sort',
  access: 'none',
  compile: (m) => {
    if (!m.has('sort')) m.fail("missing required member 'sort'");
    return Object.freeze(atPath(`${m.path}.sort`, () => parseSort(m.raw('sort'), 'sort')));
  },
  run: (keys, rows) => sortRecords(rows, keys),
});
