/**
 * BatchDelete: moves the listed records to the trash, all or none (a
 * missing one fails the step with a 404 naming it; a record listed twice is
 * deleted once). The working records become the deleted records as they were.
 *
 * Members: `collection`, `record_ids` (TypeScript; Go and Rust spell it
 * `ids`): an array of ids or primary-key-alias values, or a template that
 * resolves to one; at most `max_batch_size` of them; `bypass_ripple?`.
 *
 * The Rust client sends no `collection`. Its ids then belong to the
 * collection of the step written last before this one (in the definition's
 * text, e.g. the Query that found them); with no such step the definition
 * is refused at save. Since a missing id fails the whole step, ids from
 * another collection delete nothing.
 */
import { checkLimit } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { isConstant, type Template } from '../../templates/index.js';
import { step } from '../step.js';

interface BatchDeleteConfig {
  readonly collection: Template;
  readonly ids: Template;
  readonly bypassRipple: boolean;
}

export const batchDelete = step<BatchDeleteConfig>({
  type: 'BatchDelete',
  access: 'write',
  compile: (m) => {
    const collection = m.has('collection') ? m.template('collection')
      : m.precedingCollection() ?? m.fail("missing required member 'collection' (no earlier step names one the ids could belong to)");
    const ids = m.template(['record_ids', 'ids']);
    if (isConstant(ids) && !isIdList(ids.v)) m.fail('must be an array of record ids (strings), a Parameter reference or a placeholder', m.has('ids') && !m.has('record_ids') ? 'ids' : 'record_ids');
    return { collection, ids, bypassRipple: m.optionalBoolean('bypass_ripple') ?? false };
  },
  run: (cfg, rows, x) => {
    const row = rows[0];
    const ids = x.resolve(cfg.ids, row);
    if (!isIdList(ids)) throw new InvalidInput("'record_ids' must resolve to an array of record ids (strings)");
    checkLimit(ids.length, x.settings().max_batch_size, 'record_ids', 'ids');
    return x.session.deleteAll(x.text(cfg.collection, row, 'collection'), ids, cfg.bypassRipple);
  },
});

function isIdList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((id) => typeof id === 'string');
}
