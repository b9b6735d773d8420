/**
 * FindOne: the working records become the first record (in collection
 * order) whose field `key` equals `value`, or none. `key` is a field path
 * (dotted paths reach into objects); `value` compares by the engine's Eq,
 * typed wrappers included.
 */
import { parseFieldPath, parseFilter, type Query } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import { isConstant, type Template } from '../../templates/index.js';
import { collectionMember } from '../shared/collection-member.js';
import { step } from '../step.js';

interface FindOneConfig {
  readonly collection: Template;
  readonly key: Template;
  readonly value: Template;
}

export const findOne = step<FindOneConfig>({
  type: 'FindOne',
  access: 'read',
  compile: (m) => {
    const key = m.template('key');
    if (isConstant(key)) atPath(`${m.path}.key`, () => parseFieldPath(key.v, 'key'));
    if (!m.has('value')) m.fail("missing required member 'value'");
    const value = m.template('value');
    if (isConstant(key) && isConstant(value)) atPath(`${m.path}.value`, () => parseFilter({ field: key.v, operator: 'Eq', value: value.v }, 'value'));
    return { collection: collectionMember(m), key, value };
  },
  run: (cfg, rows, x) => {
    const row = rows[0];
    const field = parseFieldPath(x.text(cfg.key, row, 'key'), 'key');
    const filter = parseFilter({ field, operator: 'Eq', value: x.resolve(cfg.value, row) ?? null }, 'value');
    const q: Query = { filter, sort: [], skip: 0, limit: 1, bypassCache: false, bypassRipple: false };
    return x.session.find(x.text(cfg.collection, row, 'collection'), q);
  },
});
