/**
 * KvGet: the working records become one record `{value}`: the value stored
 * under `key` (its type kept), or `{value: null}` when the key is absent or
 * expired. `key` resolves against the first working record.
 *
 * A KV read is not part of a transaction's isolation, so a transactional
 * function refuses it at save.
 */
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { keyMember, resolveKey } from './kv-members.js';

export const kvGet = step<{ readonly key: Template }>({
  type: 'KvGet',
  access: 'read',
  transactional: false,
  compile: (m) => ({ key: keyMember(m) }),
  run: (cfg, rows, x) => [{ value: x.kv.entry(resolveKey(x, cfg.key, rows[0]))?.value ?? null }],
});
