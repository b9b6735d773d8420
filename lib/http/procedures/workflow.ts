/**
 * Goals, goal templates, tasks and agents (protocol.md 2.13) and schedules
 * (2.14): thin adapters
 * over the workflow services (lib/workflow). Admin-only: the records live in internal
 * collections that only admins may use (permissions.ts), like stored
 * functions; a non-admin key still uses an agent through a chat session
 * (`agent_id`), which reads it on the caller's behalf. Bodiless POSTs are `{}`.
 */
import { InvalidInput } from '../../errors.js';
import {
  AGENTS_COLLECTION,
  DEFAULT_RUNS_LIMIT,
  GOAL_TEMPLATES_COLLECTION,
  GOALS_COLLECTION,
  parseTime,
  SCHEDULE_RUNS_COLLECTION,
  SCHEDULES_COLLECTION,
  TASKS_COLLECTION,
  type StepAction,
} from '../../workflow/index.js';
import { defineProcedure, type RawInput, type Scope } from './procedure.js';
import { bodyObject, optionalString, param, queryString } from './input.js';
import type { Context } from './context.js';
import { WORKFLOW_SCHEMAS } from './workflow-schemas.js';

const body = (raw: RawInput) => (raw.body === undefined || raw.body === null ? {} : bodyObject(raw));
const id = (raw: RawInput) => param(raw, 'id');
const scope = (name: string, mode: 'read' | 'write') => (): Scope => ({ collections: [{ name, mode }] });

function stepIndex(raw: RawInput): number {
  const given = param(raw, 'index');
  if (!/^\d{1,9}$/.test(given)) throw new InvalidInput(`Step index '${given}' must be a non-negative integer`);
  return Number(given);
}

/** `?now=`: an RFC 3339 time or epoch milliseconds; absent means the server's clock. */
function nowParam(raw: RawInput): number | undefined {
  const given = queryString(raw, 'now');
  if (given === undefined || given === '') return undefined;
  return /^\d{1,15}$/.test(given) ? Number(given) : parseTime(given, 'now');
}

/** A body member of any JSON value (a step's result, a run's output or error). */
const member = (name: string) => (raw: RawInput) => ({ id: id(raw), value: body(raw)[name] });

type Handler<I> = (input: I, ctx: Context) => unknown;
// Each procedure's wire schema is its entry in WORKFLOW_SCHEMAS.
const query = <I>(name: string, collection: string, input: (raw: RawInput) => I, handler: Handler<I>) =>
  defineProcedure({
    name,
    kind: 'query',
    access: 'admin',
    input,
    scope: scope(collection, 'read'),
    handler,
    schema: WORKFLOW_SCHEMAS[name],
  });
const mutation = <I>(name: string, collection: string, input: (raw: RawInput) => I, handler: Handler<I>) =>
  defineProcedure({
    name,
    kind: 'mutation',
    access: 'admin',
    input,
    scope: scope(collection, 'write'),
    handler,
    schema: WORKFLOW_SCHEMAS[name],
  });

const withBody = (raw: RawInput) => ({ id: id(raw), body: body(raw) });

// Goals
export const goalsCreate = mutation('goals.create', GOALS_COLLECTION, body, (b, ctx) =>
  ctx.workflow.goals.create(ctx.session, b),
);
export const goalsList = query(
  'goals.list',
  GOALS_COLLECTION,
  () => null,
  (_, ctx) => ctx.workflow.goals.list(ctx.session),
);
export const goalsSearch = query(
  'goals.search',
  GOALS_COLLECTION,
  (raw) => queryString(raw, 'q') ?? '',
  (q, ctx) => ctx.workflow.goals.search(ctx.session, q),
);
export const goalsGet = query('goals.get', GOALS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.goals.get(ctx.session, input),
);
export const goalsUpdate = mutation('goals.update', GOALS_COLLECTION, withBody, (input, ctx) =>
  ctx.workflow.goals.update(ctx.session, input.id, input.body),
);
export const goalsDelete = mutation('goals.delete', GOALS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.goals.delete(ctx.session, input),
);
export const goalsComplete = mutation(
  'goals.complete',
  GOALS_COLLECTION,
  (raw) => ({ id: id(raw), summary: optionalString(body(raw), 'summary') }),
  (input, ctx) => ctx.workflow.goals.complete(ctx.session, input.id, input.summary),
);
export const goalsApprove = mutation('goals.approve', GOALS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.goals.approve(ctx.session, input),
);
export const goalsReject = mutation(
  'goals.reject',
  GOALS_COLLECTION,
  (raw) => ({ id: id(raw), reason: optionalString(body(raw), 'reason') }),
  (input, ctx) => ctx.workflow.goals.reject(ctx.session, input.id, input.reason),
);

const stepInput = (detail?: string) => (raw: RawInput) => ({
  id: id(raw),
  index: stepIndex(raw),
  detail: detail === undefined ? undefined : body(raw)[detail],
});
const stepMove = (action: StepAction, detail?: string) =>
  mutation(`goals.steps.${action}`, GOALS_COLLECTION, stepInput(detail), (input, ctx) =>
    ctx.workflow.goals.step(ctx.session, input.id, input.index, action, input.detail),
  );
export const goalStepStart = stepMove('start');
export const goalStepComplete = stepMove('complete', 'result');
export const goalStepFail = stepMove('fail', 'error');

// Goal templates
export const goalTemplatesCreate = mutation('goalTemplates.create', GOAL_TEMPLATES_COLLECTION, body, (b, ctx) =>
  ctx.workflow.goalTemplates.create(ctx.session, b),
);
export const goalTemplatesList = query(
  'goalTemplates.list',
  GOAL_TEMPLATES_COLLECTION,
  () => null,
  (_, ctx) => ctx.workflow.goalTemplates.list(ctx.session),
);
export const goalTemplatesGet = query('goalTemplates.get', GOAL_TEMPLATES_COLLECTION, id, (input, ctx) =>
  ctx.workflow.goalTemplates.get(ctx.session, input),
);
export const goalTemplatesUpdate = mutation('goalTemplates.update', GOAL_TEMPLATES_COLLECTION, withBody, (input, ctx) =>
  ctx.workflow.goalTemplates.update(ctx.session, input.id, input.body),
);
export const goalTemplatesDelete = mutation('goalTemplates.delete', GOAL_TEMPLATES_COLLECTION, id, (input, ctx) =>
  ctx.workflow.goalTemplates.delete(ctx.session, input),
);

// Tasks
export const tasksCreate = mutation('tasks.create', TASKS_COLLECTION, body, (b, ctx) =>
  ctx.workflow.tasks.create(ctx.session, b),
);
export const tasksList = query(
  'tasks.list',
  TASKS_COLLECTION,
  () => null,
  (_, ctx) => ctx.workflow.tasks.list(ctx.session),
);
export const tasksDue = query('tasks.due', TASKS_COLLECTION, nowParam, (now, ctx) =>
  ctx.workflow.tasks.due(ctx.session, now),
);
export const tasksGet = query('tasks.get', TASKS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.tasks.get(ctx.session, input),
);
export const tasksUpdate = mutation('tasks.update', TASKS_COLLECTION, withBody, (input, ctx) =>
  ctx.workflow.tasks.update(ctx.session, input.id, input.body),
);
export const tasksDelete = mutation('tasks.delete', TASKS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.tasks.delete(ctx.session, input),
);
export const tasksStart = mutation('tasks.start', TASKS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.tasks.start(ctx.session, input),
);
export const tasksSucceed = mutation('tasks.succeed', TASKS_COLLECTION, member('output'), (input, ctx) =>
  ctx.workflow.tasks.succeed(ctx.session, input.id, input.value),
);
export const tasksFail = mutation('tasks.fail', TASKS_COLLECTION, member('error'), (input, ctx) =>
  ctx.workflow.tasks.fail(ctx.session, input.id, input.value),
);
export const tasksPause = mutation('tasks.pause', TASKS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.tasks.pause(ctx.session, input),
);
export const tasksResume = mutation(
  'tasks.resume',
  TASKS_COLLECTION,
  (raw) => {
    const next = body(raw).next_run;
    return { id: id(raw), next: next === undefined || next === null ? undefined : parseTime(next, 'next_run') };
  },
  (input, ctx) => ctx.workflow.tasks.resume(ctx.session, input.id, input.next),
);

// Agents
export const agentsCreate = mutation('agents.create', AGENTS_COLLECTION, body, (b, ctx) =>
  ctx.workflow.agents.create(ctx.session, b),
);
export const agentsList = query(
  'agents.list',
  AGENTS_COLLECTION,
  () => null,
  (_, ctx) => ctx.workflow.agents.list(ctx.session),
);
export const agentsGet = query('agents.get', AGENTS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.agents.get(ctx.session, input),
);
export const agentsByName = query(
  'agents.byName',
  AGENTS_COLLECTION,
  (raw) => param(raw, 'name'),
  (n, ctx) => ctx.workflow.agents.byName(ctx.session, n),
);
export const agentsByDeployment = query(
  'agents.byDeployment',
  AGENTS_COLLECTION,
  (raw) => param(raw, 'deploymentId'),
  (d, ctx) => ctx.workflow.agents.byDeployment(ctx.session, d),
);
export const agentsUpdate = mutation('agents.update', AGENTS_COLLECTION, withBody, (input, ctx) =>
  ctx.workflow.agents.update(ctx.session, input.id, input.body),
);
export const agentsDelete = mutation('agents.delete', AGENTS_COLLECTION, id, (input, ctx) =>
  ctx.workflow.agents.delete(ctx.session, input),
);

// Schedules (the server's Scheduler fires them; a run list reads the runs collection too)
const MAX_RUNS_LIMIT = 1000;
function runsLimit(raw: RawInput): number {
  const given = queryString(raw, 'limit');
  if (given === undefined || given === '') return DEFAULT_RUNS_LIMIT;
  const limit = Number(given);
  if (!/^\d{1,9}$/.test(given) || limit < 1 || limit > MAX_RUNS_LIMIT) {
    throw new InvalidInput(`'limit' must be an integer from 1 to ${MAX_RUNS_LIMIT}`);
  }
  return limit;
}
const scheduleWrite = (): Scope => ({
  collections: [
    { name: SCHEDULES_COLLECTION, mode: 'write' },
    { name: SCHEDULE_RUNS_COLLECTION, mode: 'write' },
  ],
});
const scheduleMutation = <I>(name: string, input: (raw: RawInput) => I, handler: Handler<I>) =>
  defineProcedure({
    name,
    kind: 'mutation',
    access: 'admin',
    input,
    scope: scheduleWrite,
    handler,
    schema: WORKFLOW_SCHEMAS[name],
  });
export const schedulesCreate = scheduleMutation('schedules.create', body, (b, ctx) =>
  ctx.workflow.schedules.create(ctx.session, b),
);
export const schedulesList = query(
  'schedules.list',
  SCHEDULES_COLLECTION,
  () => null,
  (_, ctx) => ctx.workflow.schedules.list(ctx.session),
);
export const schedulesGet = query('schedules.get', SCHEDULES_COLLECTION, id, (input, ctx) =>
  ctx.workflow.schedules.get(ctx.session, input),
);
export const schedulesUpdate = scheduleMutation('schedules.update', withBody, (input, ctx) =>
  ctx.workflow.schedules.update(ctx.session, input.id, input.body),
);
export const schedulesDelete = scheduleMutation('schedules.delete', id, (input, ctx) =>
  ctx.workflow.schedules.delete(ctx.session, input),
);
export const schedulesPause = scheduleMutation('schedules.pause', id, (input, ctx) =>
  ctx.workflow.schedules.pause(ctx.session, input),
);
export const schedulesResume = scheduleMutation('schedules.resume', id, (input, ctx) =>
  ctx.workflow.schedules.resume(ctx.session, input),
);
export const schedulesRuns = defineProcedure({
  name: 'schedules.runs',
  kind: 'query',
  access: 'admin',
  schema: WORKFLOW_SCHEMAS['schedules.runs'],
  input: (raw: RawInput) => ({ id: id(raw), limit: runsLimit(raw) }),
  scope: (): Scope => ({
    collections: [
      { name: SCHEDULES_COLLECTION, mode: 'read' },
      { name: SCHEDULE_RUNS_COLLECTION, mode: 'read' },
    ],
  }),
  handler: (input, ctx) => ctx.workflow.schedules.listRuns(ctx.session, input.id, input.limit),
});

export const WORKFLOW_PROCEDURES = [
  goalsCreate,
  goalsList,
  goalsSearch,
  goalsGet,
  goalsUpdate,
  goalsDelete,
  goalsComplete,
  goalsApprove,
  goalsReject,
  goalStepStart,
  goalStepComplete,
  goalStepFail,
  goalTemplatesCreate,
  goalTemplatesList,
  goalTemplatesGet,
  goalTemplatesUpdate,
  goalTemplatesDelete,
  tasksCreate,
  tasksList,
  tasksDue,
  tasksGet,
  tasksUpdate,
  tasksDelete,
  tasksStart,
  tasksSucceed,
  tasksFail,
  tasksPause,
  tasksResume,
  agentsCreate,
  agentsList,
  agentsGet,
  agentsByName,
  agentsByDeployment,
  agentsUpdate,
  agentsDelete,
  schedulesCreate,
  schedulesList,
  schedulesGet,
  schedulesUpdate,
  schedulesDelete,
  schedulesPause,
  schedulesResume,
  schedulesRuns,
];
