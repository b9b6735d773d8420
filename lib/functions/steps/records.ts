/**
 * The working-record edits: SetField, Increment, Push and CurrentDatetime.
 * They change the working records only, never stored records.
 *
 * - Each working record is edited; when there are none, one empty record is
 *   (as BcryptHash does), so a function can build a record from nothing.
 * - `field` names a top-level field (a dotted name is the field's name, as
 *   update actions take it); prototype keys are refused at save.
 * - Values are wire JSON (typed wrappers allowed) and become stored values as
 *   an inserted record's would.
 */
import { applyActionSequence, fieldsFromWire, type Value } from '../../engine/index.js';
import type { Template } from '../template.js';
import { step, type MemberNames, type MemberReader, type Row } from './step.js';

/** The edited working records. */
function editEach(rows: readonly Row[], edit: (row: Row) => Row): Row[] {
  return (rows.length === 0 ? [{}] : rows).map(edit);
}

/** The step's target field: a top-level field name. */
function targetField(members: MemberReader, names: MemberNames): string {
  return members.fieldPath(names).join('.');
}

/** A wire value as the stored value of `field`. */
function storedValue(field: string, value: unknown): Value {
  return fieldsFromWire({ [field]: value })[field]!;
}

/**
 * SetField: sets `field` on each working record to `value` (a template,
 * resolved against that record: `{{price}}` is the record's own price).
 */
export const setField = step<{ readonly field: string; readonly value: Template }>({
  type: 'SetField',
  access: 'none',
  compile: (members) => ({ field: targetField(members, 'field'), value: members.template('value') }),
  run: (config, rows, run) =>
    editEach(rows, (row) => ({ ...row, [config.field]: storedValue(config.field, run.resolve(config.value, row)) })),
});

/**
 * Increment: adds `by` (also spelled `amount`; a template resolved against
 * each record; default 1) to `field` of each working record, as the
 * `increment` update action does: a missing field starts at 0, the numeric
 * type is kept (Integer stays exact, Decimal keeps its scale), a
 * non-numeric field or amount fails the step.
 */
export const increment = step<{ readonly field: string; readonly by?: Template }>({
  type: 'Increment',
  access: 'none',
  compile: (members) => {
    const by = members.optionalTemplate(['by', 'amount']);
    return { field: targetField(members, 'field'), ...(by ? { by } : {}) };
  },
  run: (config, rows, run) =>
    editEach(rows, (row) => {
      const value = config.by ? run.resolve(config.by, row) : 1;
      return applyActionSequence(row, [{ action: 'increment', field: config.field, value }]);
    }),
});

/**
 * Push: appends `value` (a template resolved against each record) to the
 * array `field` of each working record, as the `push` update action does:
 * a missing field becomes a one-element array, a Set or Vector keeps its
 * type, a field that is not an array fails the step.
 */
export const push = step<{ readonly field: string; readonly value: Template }>({
  type: 'Push',
  access: 'none',
  compile: (members) => ({ field: targetField(members, 'field'), value: members.template('value') }),
  run: (config, rows, run) =>
    editEach(rows, (row) =>
      applyActionSequence(row, [{ action: 'push', field: config.field, value: run.resolve(config.value, row) }]),
    ),
});

/**
 * CurrentDatetime: sets `field` (also spelled `output_field`, as the other
 * steps that produce a value name it) of each working record to the engine
 * clock's current instant, a DateTime value; every record of one step gets
 * the same instant.
 */
export const currentDatetime = step<{ readonly field: string }>({
  type: 'CurrentDatetime',
  access: 'none',
  compile: (members) => ({ field: targetField(members, ['field', 'output_field']) }),
  run: (config, rows, run) => {
    const now = storedValue(config.field, { type: 'DateTime', value: new Date(run.now()).toISOString() });
    return editEach(rows, (row) => ({ ...row, [config.field]: now }));
  },
});
