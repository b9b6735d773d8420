/**
 * ForEach: runs `functions` once per working record, starting from that
 * record alone; its fields are `{{field}}` placeholders inside (they shadow
 * the parameters). The outputs, in order, become the working records.
 */
import type { Row } from '../step.js';
import { step, type CompiledStep } from '../step.js';

export const forEach = step<{ readonly body: readonly CompiledStep[] }>({
  type: 'ForEach',
  access: 'none',
  compile: (m) => ({ body: m.steps('functions') }),
  run: async (cfg, rows, x) => {
    const out: Row[] = [];
    for (const row of rows) {
      for (const produced of await x.runSteps(cfg.body, [row], row)) out.push(produced);
      x.checkRecords(out.length);
    }
    return out;
  },
});
