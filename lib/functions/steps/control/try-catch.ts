/**
 * TryCatch: runs `try_functions`; when one of them fails, runs
 * `catch_functions` over the working records as they were, each carrying
 * the error message in `output_error_field` (default `error`; one record
 * holding only it when there were none). A call bound passed (steps, time,
 * records, depth) is never caught.
 */
import { StepFailed } from '../../../errors.js';
import { step, type CompiledStep, type Row } from '../step.js';

interface TryCatchConfig {
  readonly attempt: readonly CompiledStep[];
  readonly recover: readonly CompiledStep[];
  readonly errorField: string;
}

/** The error goes into one top-level field (a dotted name is taken as the field's name, as records allow). */
function outputField(path: readonly string[] | undefined): string {
  return path === undefined ? 'error' : path.join('.');
}

export const tryCatch = step<TryCatchConfig>({
  type: 'TryCatch',
  access: 'none',
  compile: (m) => ({
    attempt: m.steps('try_functions'),
    recover: m.optionalSteps('catch_functions') ?? [],
    errorField: outputField(m.optionalFieldPath('output_error_field')),
  }),
  run: async (cfg, rows, x) => {
    try {
      return await x.runSteps(cfg.attempt, rows);
    } catch (err) {
      if (x.isCallAbort(err)) throw err;
      const message = err instanceof StepFailed || err instanceof Error ? err.message : String(err);
      const marked: Row[] = rows.length === 0 ? [{ [cfg.errorField]: message }] : rows.map((r) => ({ ...r, [cfg.errorField]: message }));
      return cfg.recover.length === 0 ? marked : x.runSteps(cfg.recover, marked);
    }
  },
});
