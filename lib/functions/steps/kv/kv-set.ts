/**
 * KvSet: stores `value` under `key`, durably, with an optional `ttl`
 * (seconds, a duration such as "15m", or an RFC 3339 instant). Both resolve
 * against the first working record; `value` keeps its JSON type (an exact
 * placeholder such as "{{http_response}}" stores the object, typed wrappers
 * their type). The working records pass through unchanged.
 */
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { keyMember, resolveKey } from './kv-members.js';

interface KvSetConfig {
  readonly key: Template;
  readonly value: Template;
  readonly ttl?: Template;
}

export const kvSet = step<KvSetConfig>({
  type: 'KvSet',
  access: 'outside',
  compile: (m) => {
    const ttl = m.optionalTemplate('ttl');
    return { key: keyMember(m), value: m.template('value'), ...(ttl ? { ttl } : {}) };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const key = resolveKey(x, cfg.key, row);
    const ttl = cfg.ttl ? x.resolve(cfg.ttl, row) : undefined;
    await x.kv.set(key, x.resolve(cfg.value, row), ttl ?? undefined);
    return rows;
  },
});
