/** If: runs `then_functions` when the condition holds over the working records, else `else_functions` (or nothing). */
import { step, type CompiledStep } from '../step.js';
import { compileCondition, evaluateCondition, type Condition } from '../../conditions/index.js';
import { compileTemplate, resolveTemplate, type Template } from '../../templates/index.js';

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
      // Placeholder operands compile to templates at save and resolve per call.
      condition: compileCondition(m.raw('condition'), `${m.path}.condition`, { prepareValue: (raw, path) => compileTemplate(raw, path) }),
      then: m.steps('then_functions'),
      ...(otherwise ? { otherwise } : {}),
    };
  },
  run: (cfg, rows, x) => {
    const scope = x.scope(rows[0]);
    const branch = evaluateCondition(cfg.condition, rows, (t) => resolveTemplate(t as Template, scope)) ? cfg.then : cfg.otherwise;
    return branch ? x.runSteps(branch, rows) : rows;
  },
});
