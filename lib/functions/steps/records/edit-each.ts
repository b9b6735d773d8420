/**
 * What the working-record edits (SetField, Increment, Push, CurrentDatetime)
 * share. They change the working records only, never stored records.
 *
 * - Each working record is edited; when there are none, one empty record is
 *   (as BcryptHash does), so a function can build a record from nothing.
 * - `field` names a top-level field (a dotted name is the field's name, as
 *   update actions take it); prototype keys are refused at save.
 * - Values are wire JSON (typed wrappers allowed) and become stored values as
 *   an inserted record's would.
 */
import { fieldsFromWire, type Value } from '../../../engine/index.js';
import type { MemberReader, Row } from '../step.js';

/** The edited working records. */
export function editEach(rows: readonly Row[], edit: (row: Row) => Row): Row[] {
  return (rows.length === 0 ? [{}] : rows).map(edit);
}

/** The step's target field: a top-level field name. */
export function targetField(m: MemberReader, names: string | readonly string[]): string {
  return m.fieldPath(names).join('.');
}

/** A wire value as the stored value of `field`. */
export function storedValue(field: string, value: unknown): Value {
  return fieldsFromWire({ [field]: value })[field]!;
}
