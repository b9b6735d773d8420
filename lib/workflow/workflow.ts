/**
 * The workflow services of one server: goals, goal templates, tasks, agents
 * and schedules, each keeping its records in an internal collection, all on
 * the engine's clock. The composition root builds one, hands `schedules` to
 * the Scheduler that fires them and `agents` to the chat layer (a chat
 * session made with `agent_id` takes its agent's prompt, model and provider).
 */
import { AGENTS_COLLECTION, AgentService } from './agents.js';
import { GOAL_TEMPLATES_COLLECTION, GoalTemplateService } from './goal-templates.js';
import { GOALS_COLLECTION, GoalService } from './goals.js';
import { SCHEDULE_RUNS_COLLECTION, SCHEDULES_COLLECTION, ScheduleService } from './schedules.js';
import { TASKS_COLLECTION, TaskService } from './tasks.js';

/**
 * The workflow collections: admins' alone, through these routes or as records (a raw write would skip the lifecycles).
 */
export const WORKFLOW_COLLECTIONS: ReadonlySet<string> = new Set([
  GOALS_COLLECTION,
  GOAL_TEMPLATES_COLLECTION,
  TASKS_COLLECTION,
  AGENTS_COLLECTION,
  SCHEDULES_COLLECTION,
  SCHEDULE_RUNS_COLLECTION,
]);

export class Workflow {
  readonly goals: GoalService;
  readonly goalTemplates: GoalTemplateService;
  readonly tasks: TaskService;
  readonly agents: AgentService;
  /** The records of the schedules; the server's Scheduler fires them. */
  readonly schedules: ScheduleService;

  /** `now`: milliseconds since the epoch on the engine's clock. */
  constructor(now: () => number) {
    this.goals = new GoalService(now);
    this.goalTemplates = new GoalTemplateService(now);
    this.tasks = new TaskService(now);
    this.agents = new AgentService(now);
    this.schedules = new ScheduleService(now);
  }
}
