/**
 * FindOne: the working records become the first record (in collection
 * order) whose field `key` equals `value`, or none. `key` is a field path
 * (dotted paths reach into objects); `value` compares by the engine's Eq,
 * typed wrappers included. Both may hold placeholders; without them the
 * filter is built once, at save.
 */
import { parseFieldPath, parseFilter, type Filter, type Query } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import { isConstant, type Template } from '../../templates/index.js';
import { collectionMember } from '../shared/collection-member.js';
import { step, type Execution, type Row } from '../step.js';

interface FindOneConfig {
  readonly collection: Template;
  readonly key: Template;
  readonly value: Template;
  /** Present when neither key nor value holds a placeholder. */
  readonly filter?: Filter;
}

export const findOne = step<FindOneConfig>({
  type: 'FindOne',
  access: 'read',
  compile: (m) => {
    const key = m.template('key');
    if (isConstant(key)) atPath(`${m.path}.key`, () => parseFieldPath(key.v, 'key'));
    if (!m.has('value')) m.fail("missing required member 'value'");
    const value = m.template('value');
    const config = { collection: collectionMember(m), key, value };
    if (!isConstant(key) || !isConstant(value)) return config;
    return { ...config, filter: atPath(`${m.path}.value`, () => equalsFilter(key.v as string, value.v)) };
  },
  run: (cfg, rows, x) => {
    const row = rows[0];
    const q: Query = { filter: cfg.filter ?? resolvedFilter(cfg, x, row), sort: [], skip: 0, limit: 1, bypassCache: false, bypassRipple: false };
    return x.session.find(x.text(cfg.collection, row, 'collection'), q);
  },
});

function resolvedFilter(cfg: FindOneConfig, x: Execution, row: Row | undefined): Filter {
  return equalsFilter(parseFieldPath(x.text(cfg.key, row, 'key'), 'key'), x.resolve(cfg.value, row));
}

function equalsFilter(field: string, value: unknown): Filter {
  return parseFilter({ field, operator: 'Eq', value: value ?? null }, 'value');
}
