/** Limit (TypeScript client): keeps the first `limit` working records (a number or a "{{param}}"). */
import { optionalCount, resolveCount, type CountMember } from '../shared/count-member.js';
import { step } from '../step.js';

export const limit = step<CountMember>({
  type: 'Limit',
  access: 'none',
  compile: (m) => optionalCount(m, 'limit') ?? m.fail("missing required member 'limit'"),
  run: (cfg, rows, x) => rows.slice(0, resolveCount(cfg, x, rows[0])),
});
