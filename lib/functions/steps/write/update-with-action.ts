/**
 * UpdateWithAction: applies update actions (protocol.md 2.3: increment,
 * decrement, multiply, divide, modulo, push, pop, shift, unshift, remove,
 * append, clear) atomically, in order.
 *
 * Two spellings, mixed freely:
 * - which records: `record_id` (TypeScript, Go) or `filter` (Rust: every
 *   match, in one statement); exactly one.
 * - which actions: `action`, `field`, `value?` (one action) or `actions`
 *   (Rust: a list of `[action, field, value]` triples or `{action, field,
 *   value}` objects, as the sequence route takes); exactly one.
 * Action names and fields are literal (matched case-insensitively for
 * actions) and checked at save; values may hold placeholders and Parameter
 * references, and `actions` (or any item of it) may be a Parameter
 * reference or a placeholder, checked at the call. The working records
 * become the updated records.
 */
import { InvalidInput } from '../../../errors.js';
import { isPlainObject, parseActionSequence } from '../../../engine/index.js';
import { isConstant, isParameterRef, type Template } from '../../templates/index.js';
import { step, type MemberReader } from '../step.js';
import { requiredFilter, resolveFilter, type FilterMember } from '../shared/filter-member.js';
import { collectionOf, compileTarget, type WriteTarget } from './write-members.js';

type Actions =
  | { readonly one: { readonly action: string; readonly field: string; readonly value?: Template } }
  | { readonly list: Template };

interface UpdateWithActionConfig {
  readonly target: WriteTarget;
  readonly match: { readonly recordId: Template } | { readonly filter: FilterMember };
  readonly actions: Actions;
}

export const updateWithAction = step<UpdateWithActionConfig>({
  type: 'UpdateWithAction',
  access: 'write',
  compile: (m) => {
    if (m.has('record_id') && m.has('filter')) m.fail("give either 'record_id' or 'filter', not both");
    const match = m.has('filter') ? { filter: requiredFilter(m, 'filter') } : { recordId: m.template('record_id') };
    return { target: compileTarget(m), match, actions: compileActions(m) };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const collection = collectionOf(cfg.target, x, row);
    const steps = 'one' in cfg.actions
      ? parseActionSequence([{ ...cfg.actions.one, value: cfg.actions.one.value ? x.resolve(cfg.actions.one.value, row) : null }])
      : parseActionSequence(lowerCaseActions(x.resolve(cfg.actions.list, row)));
    if ('filter' in cfg.match) {
      return x.session.applyActionsWhere(collection, resolveFilter(cfg.match.filter, x, row), steps, cfg.target.bypassRipple);
    }
    const id = x.text(cfg.match.recordId, row, 'record_id');
    return [await x.session.applyActions(collection, id, steps, cfg.target.bypassRipple)];
  },
});

function compileActions(m: MemberReader): Actions {
  if (m.has('actions')) {
    if (m.has('action')) m.fail("give either 'action' or 'actions', not both");
    const raw = m.raw('actions');
    const list = m.template('actions');
    if (Array.isArray(raw)) checkAtSave(m, 'actions', lowerCaseActions(raw.filter((item) => !isParameterRef(item)).map(withoutValue)));
    else if (isConstant(list)) m.fail('must be a list of actions, a Parameter reference or a placeholder', 'actions');
    return { list };
  }
  const action = m.string('action').toLowerCase();
  checkAtSave(m, 'action', [[action, 'field']]);
  const field = m.string('field');
  checkAtSave(m, 'field', [[action, field]]);
  const value = m.optionalTemplate('value');
  return { one: { action, field, ...(value ? { value } : {}) } };
}

/** Validates action names and fields now (values are checked when applied). */
function checkAtSave(m: MemberReader, member: string, sequence: unknown): void {
  try {
    parseActionSequence(sequence);
  } catch (err) {
    if (err instanceof InvalidInput) m.fail(err.message, member);
    throw err;
  }
}

/** An action item with its value left out, so placeholders in values wait for the call. */
function withoutValue(item: unknown): unknown {
  if (Array.isArray(item)) return item.slice(0, 2);
  return isPlainObject(item) ? { ...item, value: null } : item;
}

/** Action names in lower case, in triples and objects alike. */
function lowerCaseActions(raw: unknown): unknown {
  if (!Array.isArray(raw)) return raw;
  return raw.map((item: unknown) => {
    if (Array.isArray(item) && typeof item[0] === 'string') return [item[0].toLowerCase(), ...item.slice(1)];
    if (isPlainObject(item) && typeof item.action === 'string') return { ...item, action: item.action.toLowerCase() };
    return item;
  });
}

