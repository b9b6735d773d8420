/**
 * Small tables the console copies from the server (a browser bundle cannot import lib/): the filter operators
 * the query engine accepts, and the collections only admins may touch even as records. Pure, so
 * spec/console/mirrors.spec.ts can hold them equal to the server's.
 */

/** The server's filter operators (lib/engine/query/operators.ts; there is no Regex). */
export const OPERATORS = [
  'Eq',
  'Ne',
  'Gt',
  'Gte',
  'Lt',
  'Lte',
  'In',
  'NotIn',
  'Contains',
  'StartsWith',
  'EndsWith',
  'Exists',
] as const;

/** Stored functions and the workflow: admins' alone, even read as records (lib/http/auth/permissions.ts). */
export const ADMIN_ONLY_COLLECTIONS: ReadonlySet<string> = new Set([
  '__functions',
  '__function_history',
  '__chat_goals',
  '__chat_goal_templates',
  '__chat_tasks',
  '__chat_agents',
  '__schedules',
  '__schedule_runs',
]);
