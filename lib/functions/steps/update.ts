/**
 * The update steps: Update, UpdateById, FindOneAndUpdate and
 * UpdateWithAction merge into or act on stored records through
 * `run.session`, with the target and body members of every write step
 * (write.ts). In a transactional function a filter sees the function's
 * earlier staged writes.
 */
import { isPlainObject, parseActionSequence } from '../../engine/index.js';
import { InvalidInput, NotFound } from '../../errors.js';
import { isConstant, isParameterRef, type Template } from '../template.js';
import { requiredFilter, resolveFilter, type FilterMember } from './members.js';
import { step, type MemberReader } from './step.js';
import {
  collectionOf,
  compileBody,
  compileTarget,
  requiredMatch,
  resolveBody,
  type BodyMember,
  type Match,
  type WriteTarget,
} from './write.js';

/**
 * Update: merges `updates` (an object with placeholders, or a Parameter
 * reference) into every record of `collection` matching `filter`, all or
 * none; `ttl` resets their expiry. The working records become the updated
 * records (none when nothing matched).
 */
export const update = step<{
  readonly target: WriteTarget;
  readonly filter: FilterMember;
  readonly updates: BodyMember;
}>({
  type: 'Update',
  access: 'write',
  compile: (members) => ({
    target: compileTarget(members),
    filter: requiredFilter(members, 'filter'),
    updates: compileBody(members, 'updates'),
  }),
  run: (config, rows, run) => {
    const row = rows[0];
    const collection = collectionOf(config.target, run, row);
    const filter = resolveFilter(config.filter, run, row);
    return run.session.updateWhere(
      collection,
      filter,
      resolveBody(config.updates, run, row),
      config.target.bypassRipple,
    );
  },
});

/**
 * UpdateById: merges `updates` into the record `record_id`; `ttl` resets its
 * expiry. A missing record fails the step (404). The working records become
 * the updated record.
 */
export const updateById = step<{
  readonly target: WriteTarget;
  readonly recordId: Template;
  readonly updates: BodyMember;
}>({
  type: 'UpdateById',
  access: 'write',
  compile: (members) => ({
    target: compileTarget(members),
    recordId: members.template('record_id'),
    updates: compileBody(members, 'updates'),
  }),
  run: async (config, rows, run) => {
    const row = rows[0];
    const collection = collectionOf(config.target, run, row);
    const id = run.text(config.recordId, row, 'record_id');
    return [
      await run.session.update(collection, id, resolveBody(config.updates, run, row), config.target.bypassRipple),
    ];
  },
});

/**
 * FindOneAndUpdate: merges `updates` into one record and returns it. The
 * record is `record_id` (TypeScript and Go clients) or the first record in
 * scan order matching `filter` (the Rust client's spelling); one of the two
 * is required. Found and updated in one statement. The working records
 * become the updated record, or none when no record matches (find-one
 * semantics: not an error).
 */
export const findOneAndUpdate = step<{
  readonly target: WriteTarget;
  readonly match: Match;
  readonly updates: BodyMember;
}>({
  type: 'FindOneAndUpdate',
  access: 'write',
  compile: (members) => {
    const match = requiredMatch(members);
    return { target: compileTarget(members), match, updates: compileBody(members, 'updates') };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const collection = collectionOf(config.target, run, row);
    const updates = resolveBody(config.updates, run, row);
    const bypass = config.target.bypassRipple;
    if ('filter' in config.match) {
      return run.session.updateWhere(collection, resolveFilter(config.match.filter, run, row), updates, bypass, 1);
    }
    const id = run.text(config.match.recordId, row, 'record_id');
    try {
      return [await run.session.update(collection, id, updates, bypass)];
    } catch (err) {
      if (err instanceof NotFound) return [];
      throw err;
    }
  },
});

type Actions =
  | { readonly one: { readonly action: string; readonly field: string; readonly value?: Template } }
  | { readonly list: Template };

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
export const updateWithAction = step<{
  readonly target: WriteTarget;
  readonly match: Match;
  readonly actions: Actions;
}>({
  type: 'UpdateWithAction',
  access: 'write',
  compile: (members) => {
    const match = requiredMatch(members);
    return { target: compileTarget(members), match, actions: compileActions(members) };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const collection = collectionOf(config.target, run, row);
    const { actions } = config;
    const sequence =
      'one' in actions
        ? parseActionSequence([
            { ...actions.one, value: actions.one.value ? run.resolve(actions.one.value, row) : null },
          ])
        : parseActionSequence(lowerCaseActions(run.resolve(actions.list, row)));
    if ('filter' in config.match) {
      return run.session.applyActionsWhere(
        collection,
        resolveFilter(config.match.filter, run, row),
        sequence,
        config.target.bypassRipple,
      );
    }
    const id = run.text(config.match.recordId, row, 'record_id');
    return [await run.session.applyActions(collection, id, sequence, config.target.bypassRipple)];
  },
});

function compileActions(members: MemberReader): Actions {
  if (members.has('actions')) {
    if (members.has('action')) members.fail("give either 'action' or 'actions', not both");
    const raw = members.raw('actions');
    const list = members.template('actions');
    if (Array.isArray(raw))
      checkAtSave(members, 'actions', lowerCaseActions(raw.filter((item) => !isParameterRef(item)).map(withoutValue)));
    else if (isConstant(list))
      members.fail('must be a list of actions, a Parameter reference or a placeholder', 'actions');
    return { list };
  }
  const action = members.string('action').toLowerCase();
  checkAtSave(members, 'action', [[action, 'field']]);
  const field = members.string('field');
  checkAtSave(members, 'field', [[action, field]]);
  const value = members.optionalTemplate('value');
  return { one: { action, field, ...(value ? { value } : {}) } };
}

/** Validates action names and fields at save (values are checked when applied). */
function checkAtSave(members: MemberReader, member: string, sequence: unknown): void {
  try {
    parseActionSequence(sequence);
  } catch (err) {
    if (err instanceof InvalidInput) members.fail(err.message, member);
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
