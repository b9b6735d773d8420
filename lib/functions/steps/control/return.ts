/**
 * Return: ends the call. `fields` (placeholders resolved against the first
 * working record and the parameters) becomes the response body and
 * `status_code` (default 200) its HTTP status; the status is not in the body.
 */
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';

export const returnStep = step<{ readonly fields: Template | undefined; readonly status: Template | undefined }>({
  type: 'Return',
  access: 'none',
  compile: (m) => ({ fields: m.optionalTemplate('fields'), status: m.optionalTemplate('status_code') }),
  run: (cfg, rows, x) => {
    const fields = cfg.fields ? x.resolve(cfg.fields, rows[0]) : {};
    const raw = cfg.status ? x.resolve(cfg.status, rows[0]) : 200;
    const statusCode = typeof raw === 'string' ? Number(raw) : raw;
    if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 200 || statusCode > 599) {
      throw new InvalidInput("Return 'status_code' must be an HTTP status between 200 and 599");
    }
    x.finish({ fields, statusCode });
    return rows;
  },
});
