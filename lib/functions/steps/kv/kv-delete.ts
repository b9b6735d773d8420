/**
 * KvDelete: removes `key` (resolved against the first working record),
 * durably. The working records pass through; with `output_field` each one
 * gets whether a key was there to delete (one record holding only it when
 * there were none).
 */
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { keyMember, resolveKey, writeOutput } from './kv-members.js';

interface KvDeleteConfig {
  readonly key: Template;
  readonly output?: readonly string[];
}

export const kvDelete = step<KvDeleteConfig>({
  type: 'KvDelete',
  access: 'outside',
  compile: (m) => {
    const output = m.optionalFieldPath('output_field');
    return { key: keyMember(m), ...(output ? { output } : {}) };
  },
  run: async (cfg, rows, x) => {
    const deleted = await x.kv.delete(resolveKey(x, cfg.key, rows[0]));
    return cfg.output ? writeOutput(rows, cfg.output, deleted) : rows;
  },
});
