/** Skip (TypeScript client): drops the first `skip` working records (a number or a "{{param}}"; Go's `offset` too). */
import { optionalCount, resolveCount, type CountMember } from '../shared/count-member.js';
import { step } from '../step.js';

export const skip = step<CountMember>({
  type: 'Skip',
  access: 'none',
  compile: (m) => optionalCount(m, ['skip', 'offset']) ?? m.fail("missing required member 'skip'"),
  run: (cfg, rows, x) => rows.slice(resolveCount(cfg, x, rows[0])),
});
