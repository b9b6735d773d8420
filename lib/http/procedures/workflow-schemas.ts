/**
 * The wire schemas of the goal, goal template, task, agent and schedule
 * routes (workflow.ts), by procedure name. The records are free-form JSON:
 * whatever members a client sends come back as sent, beside the server's
 * `id`, `status`, `created_at`, `updated_at` and lifecycle members, which
 * a body may not set (400). A move the lifecycle does not allow is 409
 * `{error, current_status, allowed_actions, action}`.
 */
import type { ProcedureSchema } from './procedure.js';
import { Anything, nullable, Type } from './shapes.js';

/** A workflow record: free-form members plus the server's. */
function record(title: string, description: string) {
  return Type.Object(
    {
      id: Type.String(),
      status: Type.String(),
      created_at: Type.String({ description: 'RFC 3339, the server clock.' }),
      updated_at: Type.String(),
    },
    { title, description: `${description} Members the client sent come back as sent.` },
  );
}

const Goal = record('Goal', 'A goal: pending, in_progress, pending_review, completed or failed; steps with their own.');
const GoalTemplate = record('GoalTemplate', 'A goal template.');
const Task = record('Task', 'A task: active, running, paused, completed or failed; next_run from due_at or cron.');
const Agent = record('Agent', 'An agent: a unique name; chat sessions made with its id take its settings.');
const Schedule = record('Schedule', 'A schedule the server fires: active or paused, next_run, run counters.');

const Run = Type.Object(
  {
    id: Type.String(),
    schedule_id: Type.String(),
    scheduled_for: Type.String(),
    started_at: Type.String(),
    ended_at: nullable(Type.String()),
    status: Type.Enum(['running', 'success', 'failure', 'skipped']),
    outcome: nullable(Type.String()),
    error: Type.Optional(nullable(Type.String())),
    result: Type.Optional(Anything),
  },
  { title: 'ScheduleRun' },
);

const Deleted = Type.Object({ status: Type.Literal('deleted'), id: Type.String() });

/** A create or partial update body: any members but the lifecycle ones. */
const Members = (what: string) => Type.Object({}, { description: `The ${what}'s members, any but lifecycle ones.` });

const one = (member: string, description: string) =>
  Type.Object({ [member]: Type.Optional(Type.Unknown({ description })) });

const index = { index: Type.Integer({ minimum: 0, description: 'The step, from 0.' }) };

const move = (summary: string, response: object, extra: Partial<ProcedureSchema> = {}): ProcedureSchema => ({
  summary,
  response,
  ...extra,
});

export const WORKFLOW_SCHEMAS: Readonly<Record<string, ProcedureSchema>> = {
  'goals.create': move('Create a goal', Goal, {
    description: 'steps: [{description, ...}] (a string is a description). status may say in_progress.',
    body: Members('goal'),
  }),
  'goals.list': move('List the goals, oldest first', Type.Object({ count: Type.Integer(), goals: Type.Array(Goal) })),
  'goals.search': move(
    'Goals holding every word of q',
    Type.Object({ count: Type.Integer(), goals: Type.Array(Goal) }),
    {
      description: 'In any text member, steps included, case-insensitively.',
      query: { q: Type.String({ description: 'The words.' }) },
    },
  ),
  'goals.get': move('A goal', Goal),
  'goals.update': move('Change a goal (partial)', Goal, { body: Members('goal') }),
  'goals.delete': move('Delete a goal', Deleted),
  'goals.complete': move('Send a goal to review', Goal, { body: one('summary', 'What was done (text).') }),
  'goals.approve': move('Approve a goal', Goal, {
    description: 'pending -> in_progress; from review, in_progress, or completed when every step is.',
  }),
  'goals.reject': move('Reject a goal (failed)', Goal, { body: one('reason', 'Why (text).') }),
  'goals.steps.start': move("Start a goal's step", Goal, { params: index }),
  'goals.steps.complete': move("Complete a goal's step", Goal, { params: index, body: one('result', 'Any value.') }),
  'goals.steps.fail': move("Fail a goal's step", Goal, { params: index, body: one('error', 'Any value.') }),
  'goalTemplates.create': move('Create a goal template', GoalTemplate, { body: Members('template') }),
  'goalTemplates.list': move('List the goal templates', Type.Object({ templates: Type.Array(GoalTemplate) })),
  'goalTemplates.get': move('A goal template', GoalTemplate),
  'goalTemplates.update': move('Change a goal template (partial)', GoalTemplate, { body: Members('template') }),
  'goalTemplates.delete': move('Delete a goal template', Deleted),
  'tasks.create': move('Create a task', Task, {
    description: 'due_at (the first run), or cron / schedule on the clock of timezone; neither: by hand only.',
    body: Members('task'),
  }),
  'tasks.list': move('List the tasks', Type.Object({ tasks: Type.Array(Task) })),
  'tasks.due': move('Active tasks due at a time, soonest first', Type.Object({ tasks: Type.Array(Task) }), {
    query: { now: Type.String({ description: 'RFC 3339 or epoch milliseconds; the server clock by default.' }) },
  }),
  'tasks.get': move('A task', Task),
  'tasks.update': move('Change a task (partial)', Task, { body: Members('task') }),
  'tasks.delete': move('Delete a task', Deleted),
  'tasks.start': move('Start a task (running)', Task),
  'tasks.succeed': move('A task succeeded', Task, { body: one('output', 'Any value.') }),
  'tasks.fail': move('A task failed', Task, {
    description: 'Retried (active, due in retry_delay_secs) while retry_count <= max_retries, else failed.',
    body: one('error', 'Any value.'),
  }),
  'tasks.pause': move('Pause a task', Task),
  'tasks.resume': move('Resume a task', Task, {
    body: Type.Object({ next_run: Type.Optional(Type.Unknown({ description: 'RFC 3339: when to run next.' })) }),
  }),
  'agents.create': move('Create an agent', Agent, {
    description: 'name must be unique (409).',
    body: Members('agent'),
  }),
  'agents.list': move('List the agents', Type.Object({ agents: Type.Array(Agent) })),
  'agents.get': move('An agent', Agent),
  'agents.byName': move('The agent of a name', Agent),
  'agents.byDeployment': move("A deployment's agents", Type.Object({ agents: Type.Array(Agent) })),
  'agents.update': move('Change an agent (partial)', Agent, { body: Members('agent') }),
  'agents.delete': move('Delete an agent', Deleted),
  'schedules.create': move('Create a schedule', Schedule, {
    description:
      'A cron (and timezone) and an action: function_label with parameters, or action {type: "http", url, ...} ' +
      '(docs/workflow.md, Schedules). Created paused with status "paused", paused: true or enabled: false.',
    body: Members('schedule'),
  }),
  'schedules.list': move('List the schedules', Type.Object({ schedules: Type.Array(Schedule) })),
  'schedules.get': move('A schedule', Schedule),
  'schedules.update': move('Change a schedule (partial)', Schedule, { body: Members('schedule') }),
  'schedules.delete': move('Delete a schedule and its runs', Deleted),
  'schedules.pause': move('Pause a schedule', Schedule),
  'schedules.resume': move('Resume a schedule', Schedule, { description: 'Instants passed while paused are not run.' }),
  'schedules.runs': move("A schedule's runs, newest first", Type.Object({ runs: Type.Array(Run) }), {
    query: { limit: Type.String({ description: '1 to 1000 (50).' }) },
  }),
};
