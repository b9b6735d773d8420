/**
 * AddFields (spec only; no client builds it): `fields` is an object of
 * field name -> value, each value a template resolved per working record,
 * so `{"greeting": "hi {{name}}", "owner": {"type": "Parameter", "name":
 * "user"}, "total": "{{price}}"}` sees each record's own fields. Names
 * are looked up as for every step (ForEach frames, then the parameters,
 * then the record), so a parameter shadows a record field of the same
 * name. The values are stored as a record's would be (typed
 * wrappers become typed values); an existing field is replaced. `id` may
 * not be set: a working record keeps the identity of the record it came
 * from.
 */
import { fieldFromWire, isPlainObject, type Value } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import { isConstant, type Template } from '../../templates/index.js';
import { step, type Row } from '../step.js';

type AddFieldsConfig =
  | { readonly constant: Readonly<Record<string, Value>> }
  | { readonly template: Template };

export const addFields = step<AddFieldsConfig>({
  type: 'AddFields',
  access: 'none',
  compile: (m) => {
    const raw = m.raw('fields');
    if (!isPlainObject(raw) || Object.keys(raw).length === 0) m.fail('must be a non-empty object of field name -> value', 'fields');
    if (Object.hasOwn(raw as object, 'id')) m.fail("'id' cannot be set: a working record keeps its record's id", 'fields.id');
    const template = m.template('fields');
    if (!isConstant(template)) return { template };
    return { constant: atPath(`${m.path}.fields`, () => toValues(template.v)) };
  },
  run: (cfg, rows, x) => {
    if ('constant' in cfg) return rows.map((row) => ({ ...row, ...cfg.constant }));
    return rows.map((row) => ({ ...row, ...toValues(x.resolve(cfg.template, row)) }));
  },
});

function toValues(resolved: unknown): Row {
  const out: Record<string, Value> = {};
  for (const [name, v] of Object.entries(resolved as Record<string, unknown>)) {
    out[name] = v === undefined ? null : fieldFromWire(v, name);
  }
  return out;
}
