/**
 * Tables the console mirrors from the server (it cannot import lib/ into the browser bundle) stay equal to the
 * server's: the workflow lifecycles that disable moves a state does not allow, the options each field type may
 * carry in the schema editor, the filter builder's operators and the admin-only collections. A change on one side
 * fails here until the other follows.
 */
import { expect } from 'chai';
import { GOAL_MACHINE, SCHEDULE_MACHINE, STEP_MACHINE, TASK_MACHINE, type Machine } from '../../lib/workflow/index.js';
import { OPTIONS_BY_TYPE } from '../../lib/engine/schema/field-options.js';
import { OPERATORS } from '../../lib/engine/query/operators.js';
import { ADMIN_ONLY_COLLECTIONS } from '../../lib/functions/index.js';
import { WORKFLOW_COLLECTIONS } from '../../lib/workflow/index.js';
import {
  GOAL_LIFECYCLE,
  SCHEDULE_LIFECYCLE,
  STEP_LIFECYCLE,
  TASK_LIFECYCLE,
  type Lifecycle,
} from '../../console/src/pages/workflow-lifecycles.js';
import { FIELD_TYPES, OPTIONS_BY_TYPE as CONSOLE_OPTIONS } from '../../console/src/schema-model.js';
import {
  ADMIN_ONLY_COLLECTIONS as CONSOLE_ADMIN_ONLY,
  OPERATORS as CONSOLE_OPERATORS,
} from '../../console/src/server-tables.js';

/** A machine as a lifecycle: for each state, the actions it allows. */
const actions = (machine: Machine): Lifecycle =>
  Object.fromEntries(Object.entries(machine).map(([state, moves]) => [state, Object.keys(moves)]));

describe('console mirrors of server tables', () => {
  it('has the workflow lifecycles of lib/workflow/machines.ts', () => {
    expect(GOAL_LIFECYCLE).to.deep.equal(actions(GOAL_MACHINE));
    expect(STEP_LIFECYCLE).to.deep.equal(actions(STEP_MACHINE));
    expect(TASK_LIFECYCLE).to.deep.equal(actions(TASK_MACHINE));
    expect(SCHEDULE_LIFECYCLE).to.deep.equal(actions(SCHEDULE_MACHINE));
  });

  it('has the field types and their options of lib/engine/schema/field-options.ts', () => {
    expect([...FIELD_TYPES].sort()).to.deep.equal(Object.keys(OPTIONS_BY_TYPE).sort());
    for (const type of FIELD_TYPES) expect(CONSOLE_OPTIONS[type], type).to.deep.equal(OPTIONS_BY_TYPE[type]);
  });

  it('offers the filter operators of lib/engine/query/operators.ts', () => {
    expect([...CONSOLE_OPERATORS]).to.deep.equal([...OPERATORS]);
  });

  it('knows the collections lib/http/auth/permissions.ts keeps for admins', () => {
    expect([...CONSOLE_ADMIN_ONLY].sort()).to.deep.equal([...ADMIN_ONLY_COLLECTIONS, ...WORKFLOW_COLLECTIONS].sort());
  });
});
