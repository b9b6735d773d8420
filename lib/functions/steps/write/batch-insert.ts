/**
 * BatchInsert: many records into one collection, all or none (one durable
 * batch; one staged statement in a transactional function). `records` is an
 * array whose items are objects (placeholders and Parameter references
 * inside) or Parameter references, or one Parameter reference to an array;
 * `ttl` applies to every record. At most `max_batch_size` records. The
 * working records become the inserted records, in order.
 */
import { checkLimit, isPlainObject } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { isConstant, type Template } from '../../templates/index.js';
import { step } from '../step.js';
import { collectionOf, compileTarget, type WriteTarget } from './write-members.js';

interface BatchInsertConfig {
  readonly target: WriteTarget;
  readonly records: Template;
  readonly ttl?: Template;
}

export const batchInsert = step<BatchInsertConfig>({
  type: 'BatchInsert',
  access: 'write',
  compile: (m) => {
    const records = m.template('records');
    if (isConstant(records)) {
      const list = records.v;
      if (!Array.isArray(list)) return m.fail('must be an array of records, a Parameter reference or a placeholder', 'records');
      const bad = list.findIndex((r: unknown) => !isPlainObject(r));
      if (bad >= 0) m.fail('must be a JSON object', `records[${bad}]`);
    }
    const ttl = m.optionalTemplate('ttl');
    return { target: compileTarget(m), records, ...(ttl ? { ttl } : {}) };
  },
  run: (cfg, rows, x) => {
    const row = rows[0];
    const records = x.resolve(cfg.records, row);
    if (!Array.isArray(records)) throw new InvalidInput("'records' must resolve to an array of JSON objects");
    checkLimit(records.length, x.settings().max_batch_size, 'records', 'records');
    const ttl = cfg.ttl ? x.resolve(cfg.ttl, row) : undefined;
    const bodies = records.map((r, i) => {
      if (!isPlainObject(r)) throw new InvalidInput(`'records[${i}]' must resolve to a JSON object`);
      return ttl === undefined ? r : { ...r, ttl };
    });
    return x.session.insertAll(collectionOf(cfg.target, x, row), bodies, cfg.target.bypassRipple);
  },
});
