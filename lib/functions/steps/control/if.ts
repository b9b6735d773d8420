/** If: runs `then_functions` when the condition holds over the working records, else `else_functions` (or nothing). */
import { step, type CompiledStep } from '../step.js';
import { compileCondition, evaluateCondition, type Condition } from './condition-adapter.js';

interface IfConfig {
  readonly condition: Condition;
  readonly then: readonly CompiledStep[];
  readonly otherwise?: readonly CompiledStep[];
}

export const ifStep = step<IfConfig>({
  type: 'If',
  access: 'none',
  compile: (m) => {
    if (!m.has('condition')) m.fail("missing required member 'condition'");
    const otherwise = m.optionalSteps('else_functions');
    return {
      condition: compileCondition(m.raw('condition'), `${m.path}.condition`),
      then: m.steps('then_functions'),
      ...(otherwise ? { otherwise } : {}),
    };
  },
  run: (cfg, rows, x) => {
    const branch = evaluateCondition(cfg.condition, rows, x.scope(rows[0])) ? cfg.then : cfg.otherwise;
    return branch ? x.runSteps(branch, rows) : rows;
  },
});
