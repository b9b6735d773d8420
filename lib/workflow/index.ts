/**
 * Public surface of the workflow layer: goals, goal templates, tasks and
 * agents (protocol.md 2.13) and schedules with their Scheduler (2.14), free-form
 * records in internal collections with real lifecycles (machines.ts).
 */
export { AgentService, AGENTS_COLLECTION, type AgentDefaults } from './agents.js';
export { GoalService, GOALS_COLLECTION, type StepAction } from './goals.js';
export { GoalTemplateService, GOAL_TEMPLATES_COLLECTION } from './goal-templates.js';
export { parseTime, TaskService, TASKS_COLLECTION, DEFAULT_MAX_RETRIES } from './tasks.js';
export {
  allowedActions,
  GOAL_MACHINE,
  SCHEDULE_MACHINE,
  STEP_MACHINE,
  TASK_MACHINE,
  transition,
  type Machine,
} from './machines.js';
export type { Doc } from './document-store.js';
export { actionOf, type ScheduleAction } from './schedule-action.js';
export {
  cronOf,
  missedRunPolicy,
  nextRunAfter,
  ScheduleService,
  SCHEDULES_COLLECTION,
  SCHEDULE_RUNS_COLLECTION,
  DEFAULT_RUNS_LIMIT,
  MAX_KEPT_RUNS,
  MISSED_RUN_POLICIES,
  type RunOutcome,
} from './schedules.js';
export { Scheduler, type ScheduleOutcome, type SchedulerDeps } from './scheduler.js';
export { Workflow, WORKFLOW_COLLECTIONS } from './workflow.js';
