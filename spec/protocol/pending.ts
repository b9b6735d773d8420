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
  // Issue 14 (goals, tasks, agents, schedules) serves all its routes.
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
