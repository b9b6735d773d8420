/**
 * CallFunction: calls another stored function by label (depth-limited by
 * `max_function_call_depth`, recursion included). Without `params` the
 * callee inherits this call's parameters (those it declares); with them it
 * gets exactly those. Its records (or its Return fields, as one record)
 * become the working records.
 */
import { InvalidInput } from '../../../errors.js';
import { isPlainObject } from '../../../engine/index.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';

export const callFunction = step<{ readonly label: Template; readonly params?: Template }>({
  type: 'CallFunction',
  access: 'none',
  compile: (m) => {
    const params = m.optionalTemplate('params');
    return { label: m.template('function_label'), ...(params ? { params } : {}) };
  },
  run: (cfg, rows, x) => {
    const label = x.text(cfg.label, rows[0], 'function_label');
    const params = cfg.params ? x.resolve(cfg.params, rows[0]) : undefined;
    if (params !== undefined && !isPlainObject(params)) throw new InvalidInput("CallFunction 'params' must resolve to an object");
    return x.callFunction(label, params);
  },
});
