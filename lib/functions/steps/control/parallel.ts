/**
 * Parallel: each step of `functions` runs at the same time over the same
 * working records; their outputs are merged in step order. With
 * `wait_for_all` (default true) any failing branch fails the step; with
 * false the failed branches are left out and the rest are merged. A call
 * bound passed inside a branch always fails the step.
 */
import { InvalidInput } from '../../../errors.js';
import { MAX_PARALLEL_BRANCHES } from '../../limits.js';
import type { Row } from '../step.js';
import { step, type CompiledStep } from '../step.js';

export const parallel = step<{ readonly branches: readonly CompiledStep[]; readonly waitForAll: boolean }>({
  type: 'Parallel',
  access: 'none',
  compile: (m) => {
    const branches = m.steps('functions');
    if (branches.length > MAX_PARALLEL_BRANCHES) m.fail(`at most ${MAX_PARALLEL_BRANCHES} branches`, 'functions');
    return { branches, waitForAll: m.optionalBoolean('wait_for_all') ?? true };
  },
  run: async (cfg, rows, x) => {
    const settled = await Promise.allSettled(cfg.branches.map((s) => x.runSteps([s], rows)));
    const out: Row[] = [];
    for (const r of settled) {
      if (r.status === 'fulfilled') out.push(...r.value);
      else if (cfg.waitForAll || x.isCallAbort(r.reason)) throw r.reason;
    }
    if (out.length === 0 && settled.length > 0 && settled.every((r) => r.status === 'rejected')) {
      throw new InvalidInput('Every Parallel branch failed');
    }
    x.checkRecords(out.length);
    return out;
  },
});
