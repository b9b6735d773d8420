/**
 * The goal, step, task and schedule lifecycles (lib/workflow/machines.ts): every
 * state against every action, valid moves to their states and every other
 * pair refused with 409 naming the current state and the allowed actions.
 */
import { expect } from 'chai';
import {
  allowedActions,
  GOAL_MACHINE,
  SCHEDULE_MACHINE,
  STEP_MACHINE,
  TASK_MACHINE,
  transition,
  type Machine,
} from '../../lib/workflow/index.js';
import { InvalidTransition } from '../../lib/errors.js';

/** The moves each lifecycle must allow, written out independently of the tables: "state action" -> outcomes. */
const EXPECTED: Record<string, { machine: Machine; actions: string[]; moves: Record<string, string[]> }> = {
  goal: {
    machine: GOAL_MACHINE,
    actions: ['approve', 'reject', 'complete'],
    moves: {
      'pending approve': ['in_progress'],
      'pending complete': ['pending_review'],
      'pending reject': ['failed'],
      'in_progress complete': ['pending_review'],
      'in_progress reject': ['failed'],
      'pending_review approve': ['in_progress', 'completed'],
      'pending_review reject': ['failed'],
    },
  },
  step: {
    machine: STEP_MACHINE,
    actions: ['start', 'complete', 'fail'],
    moves: {
      'pending start': ['in_progress'],
      'pending complete': ['completed'],
      'pending fail': ['failed'],
      'in_progress complete': ['completed'],
      'in_progress fail': ['failed'],
      'failed start': ['in_progress'],
    },
  },
  task: {
    machine: TASK_MACHINE,
    actions: ['start', 'succeed', 'fail', 'pause', 'resume'],
    moves: {
      'active start': ['running'],
      'active fail': ['active', 'failed'],
      'active pause': ['paused'],
      'running succeed': ['active', 'completed'],
      'running fail': ['active', 'failed'],
      'running pause': ['paused'],
      'paused resume': ['active'],
      'failed resume': ['active'],
      'completed resume': ['active'],
    },
  },
  schedule: {
    machine: SCHEDULE_MACHINE,
    actions: ['pause', 'resume'],
    moves: { 'active pause': ['paused'], 'paused resume': ['active'] },
  },
};

describe('workflow lifecycles', () => {
  for (const [resource, { machine, actions, moves }] of Object.entries(EXPECTED)) {
    describe(`${resource}`, () => {
      it('has exactly the expected states', () => {
        const states = new Set(Object.keys(moves).map((k) => k.split(' ')[0]!));
        for (const outcomes of Object.values(moves)) for (const s of outcomes) states.add(s);
        expect(Object.keys(machine).sort()).to.deep.equal([...states].sort());
      });

      for (const state of Object.keys(machine)) {
        for (const action of actions) {
          const outcomes = moves[`${state} ${action}`];
          if (outcomes) {
            it(`${action} from ${state} leads to ${outcomes.join(' or ')}`, () => {
              expect(transition(machine, { resource, id: 'x1' }, state, action)).to.equal(outcomes[0]);
              for (const to of outcomes)
                expect(transition(machine, { resource, id: 'x1' }, state, action, to)).to.equal(to);
              expect(() => transition(machine, { resource, id: 'x1' }, state, action, 'nowhere')).to.throw(
                Error,
                'cannot lead to nowhere',
              );
            });
          } else {
            it(`refuses ${action} from ${state} with 409`, () => {
              const allowed = actions.filter((a) => moves[`${state} ${a}`]);
              try {
                transition(machine, { resource, id: 'x1' }, state, action);
              } catch (err) {
                expect(err).to.be.instanceOf(InvalidTransition);
                const e = err as InvalidTransition;
                expect(e.status).to.equal(409);
                expect(e).to.include({ current: state, action });
                expect([...e.allowed].sort()).to.deep.equal(allowed.sort());
                expect(e.message).to.include(`it is ${state}`);
                for (const a of allowed) expect(e.message).to.include(a);
                return;
              }
              throw new Error('accepted');
            });
          }
        }
      }

      it('refuses an unknown state or action, and inherited names', () => {
        expect(() => transition(machine, { resource, id: 'x1' }, 'nonsense', actions[0]!)).to.throw(InvalidTransition);
        expect(() => transition(machine, { resource, id: 'x1' }, Object.keys(machine)[0]!, 'constructor')).to.throw(
          InvalidTransition,
        );
        expect(() => transition(machine, { resource, id: 'x1' }, 'toString', actions[0]!)).to.throw(InvalidTransition);
        expect(allowedActions(machine, 'nonsense')).to.deep.equal([]);
      });
    });
  }
});
