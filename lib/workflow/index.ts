/**
 * Goals, goal templates, tasks and agents (protocol.md 2.13) and schedules (2.14): free-form
 * records in internal collections with real lifecycles (machines.ts).
 */
export { AgentService, AGENTS_COLLECTION, type AgentDefaults } from './agents.js';
export { GoalService, GOALS_COLLECTION, type StepAction } from './goals.js';
export { GoalTemplateService, GOAL_TEMPLATES_COLLECTION } from './templates.js';
export { parseTime, TaskService, TASKS_COLLECTION, DEFAULT_MAX_RETRIES } from './tasks.js';
export { allowedActions, GOAL_MACHINE, SCHEDULE_MACHINE, STEP_MACHINE, TASK_MACHINE, transition, type Machine } from './machines.js';
export type { Doc } from './document-store.js';
export { actionOf, type ScheduleAction } from './schedule-action.js';
export {
  cronOf, missedRunPolicy, nextRunAfter, ScheduleService, SCHEDULES_COLLECTION, SCHEDULE_RUNS_COLLECTION, DEFAULT_RUNS_LIMIT, MAX_KEPT_RUNS, MISSED_RUN_POLICIES,
  type RunOutcome,
} from './schedules.js';
export { Scheduler, type SchedulerDeps } from './scheduler.js';
import { AGENTS_COLLECTION } from './agents.js';
import { GOALS_COLLECTION } from './goals.js';
import { GOAL_TEMPLATES_COLLECTION } from './templates.js';
import { TASKS_COLLECTION } from './tasks.js';
import { SCHEDULE_RUNS_COLLECTION, SCHEDULES_COLLECTION } from './schedules.js';

/** The workflow collections: admins' alone, through these routes or as records (a raw write would skip the lifecycles). */
export const WORKFLOW_COLLECTIONS: ReadonlySet<string> = new Set([
  GOALS_COLLECTION, GOAL_TEMPLATES_COLLECTION, TASKS_COLLECTION, AGENTS_COLLECTION, SCHEDULES_COLLECTION, SCHEDULE_RUNS_COLLECTION,
]);
