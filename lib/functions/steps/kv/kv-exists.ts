/**
 * KvExists: whether `key` holds a live (unexpired) value, as a boolean in
 * `output_field` (default `exists`). The key resolves against each working
 * record, so each record gets the answer for its own key; with no working
 * records the step yields one record holding only the answer.
 *
 * Like KvGet, refused in a transactional function.
 */
import type { Template } from '../../templates/index.js';
import { step, type Row } from '../step.js';
import { keyMember, resolveKey, withField } from './kv-members.js';

interface KvExistsConfig {
  readonly key: Template;
  readonly output: readonly string[];
}

export const kvExists = step<KvExistsConfig>({
  type: 'KvExists',
  access: 'read',
  transactional: false,
  compile: (m) => ({ key: keyMember(m), output: m.optionalFieldPath('output_field') ?? ['exists'] }),
  run: (cfg, rows, x) => {
    const exists = (row: Row | undefined) => x.kv.entry(resolveKey(x, cfg.key, row)) !== undefined;
    return rows.length === 0 ? [withField({}, cfg.output, exists(undefined))] : rows.map((r) => withField(r, cfg.output, exists(r)));
  },
});
