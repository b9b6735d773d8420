/** Sleep: waits `duration_ms` (a number or a placeholder), never past the call's time limit. */
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';

export const sleep = step<{ readonly duration: Template }>({
  type: 'Sleep',
  access: 'none',
  compile: (m) => ({ duration: m.template('duration_ms') }),
  run: async (cfg, rows, x) => {
    const ms = x.resolve(cfg.duration, rows[0]);
    const n = typeof ms === 'string' && ms.trim() !== '' ? Number(ms) : ms;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new InvalidInput("Sleep 'duration_ms' must be a non-negative number of milliseconds");
    await x.sleep(n);
    return rows;
  },
});
