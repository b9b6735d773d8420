/**
 * Inventory routes and message types this server does not serve yet, keyed
 * by the issue that will serve them. inventory.spec.ts asserts each one is
 * NOT served, so the issue that serves it fails that test and removes its
 * line here; every other inventory entry must be served. Entries use
 * protocol.md's notation, exactly as in inventory.ts.
 */

export interface PendingWork {
  /** What the issue is, for the failure message. */
  readonly topic: string;
  readonly routes: readonly string[];
  readonly messageTypes: readonly string[];
}

export const PENDING: Readonly<Record<number, PendingWork>> = {
  // Issue 12 (the rest of the step catalog) adds no route of its own.
  14: {
    topic: 'goals, goal templates, tasks, agents and schedules',
    routes: [
      'POST /api/chat/goals',
      'GET /api/chat/goals',
      'GET /api/chat/goals/search',
      'GET /api/chat/goals/{id}',
      'PUT /api/chat/goals/{id}',
      'DELETE /api/chat/goals/{id}',
      'POST /api/chat/goals/{id}/complete',
      'POST /api/chat/goals/{id}/approve',
      'POST /api/chat/goals/{id}/reject',
      'POST /api/chat/goals/{id}/steps/{index}/start',
      'POST /api/chat/goals/{id}/steps/{index}/complete',
      'POST /api/chat/goals/{id}/steps/{index}/fail',
      'POST /api/chat/goal-templates',
      'GET /api/chat/goal-templates',
      'GET /api/chat/goal-templates/{id}',
      'PUT /api/chat/goal-templates/{id}',
      'DELETE /api/chat/goal-templates/{id}',
      'POST /api/chat/tasks',
      'GET /api/chat/tasks',
      'GET /api/chat/tasks/due',
      'GET /api/chat/tasks/{id}',
      'PUT /api/chat/tasks/{id}',
      'DELETE /api/chat/tasks/{id}',
      'POST /api/chat/tasks/{id}/start',
      'POST /api/chat/tasks/{id}/succeed',
      'POST /api/chat/tasks/{id}/fail',
      'POST /api/chat/tasks/{id}/pause',
      'POST /api/chat/tasks/{id}/resume',
      'POST /api/chat/agents',
      'GET /api/chat/agents',
      'GET /api/chat/agents/{id}',
      'GET /api/chat/agents/by-name/{name}',
      'GET /api/chat/agents/by-deployment/{deploymentId}',
      'PUT /api/chat/agents/{id}',
      'DELETE /api/chat/agents/{id}',
      'POST /api/schedules',
      'GET /api/schedules',
      'GET /api/schedules/{id}',
      'PUT /api/schedules/{id}',
      'DELETE /api/schedules/{id}',
      'POST /api/schedules/{id}/pause',
      'POST /api/schedules/{id}/resume',
    ],
    messageTypes: [],
  },
};

/** The issue that will serve `route` ("METHOD /path" in protocol notation), if it is pending. */
export function pendingIssueOfRoute(route: string): number | undefined {
  return issueWhere((work) => work.routes.includes(route));
}

export function pendingIssueOfMessage(type: string): number | undefined {
  return issueWhere((work) => work.messageTypes.includes(type));
}

function issueWhere(test: (work: PendingWork) => boolean): number | undefined {
  const found = Object.entries(PENDING).find(([, work]) => test(work));
  return found ? Number(found[0]) : undefined;
}
