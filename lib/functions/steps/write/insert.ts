/**
 * Insert: one record into a collection. `record` is an object (placeholders
 * resolved against the first working record and the parameters) or a
 * Parameter reference; `ttl` (seconds or a duration string) becomes the
 * record's expiry. The working records become the inserted record.
 */
import { isPlainObject } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';

interface InsertConfig {
  readonly collection: Template;
  readonly record: Template;
  readonly ttl?: Template;
  readonly bypassRipple: boolean;
}

export const insert = step<InsertConfig>({
  type: 'Insert',
  access: 'write',
  compile: (m) => {
    const ttl = m.optionalTemplate('ttl');
    return {
      collection: m.template('collection'),
      record: m.template('record'),
      ...(ttl ? { ttl } : {}),
      bypassRipple: m.optionalBoolean('bypass_ripple') ?? false,
    };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const collection = x.text(cfg.collection, row, 'collection');
    const record = x.resolve(cfg.record, row);
    if (!isPlainObject(record)) throw new InvalidInput("Insert 'record' must resolve to a JSON object");
    const body = cfg.ttl ? { ...record, ttl: x.resolve(cfg.ttl, row) } : record;
    const id = await x.session.insert(collection, body, cfg.bypassRipple);
    return [x.session.findById(collection, id)];
  },
});
