/**
 * Tables the console mirrors from the server (it cannot import lib/ into the browser bundle) stay equal to the
 * server's: the workflow lifecycles that disable moves a state does not allow, and the options each field type
 * may carry in the schema editor. A change on one side fails here until the other follows.
 */
import { expect } from 'chai';
import { GOAL_MACHINE, SCHEDULE_MACHINE, STEP_MACHINE, TASK_MACHINE, type Machine } from '../../lib/workflow/index.js';
import { OPTIONS_BY_TYPE } from '../../lib/engine/schema/field-options.js';
import {
  GOAL_LIFECYCLE,
  SCHEDULE_LIFECYCLE,
  STEP_LIFECYCLE,
  TASK_LIFECYCLE,
  type Lifecycle,
} from '../../console/src/pages/workflow-lifecycles.js';
import { FIELD_TYPES, OPTIONS_BY_TYPE as CONSOLE_OPTIONS } from '../../console/src/schema-model.js';

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
});
