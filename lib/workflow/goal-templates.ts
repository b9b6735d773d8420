/**
 * Goal templates (protocol.md 2.13): free-form records (`title`,
 * `description`, `steps`, ...) to make goals from. They have no lifecycle:
 * `status` is free-form (default `active`).
 */
import { InvalidInput } from '../errors.js';
import type { Session } from '../engine/index.js';
import { clientMembers, DocumentStore, type Doc } from './document-store.js';

export const GOAL_TEMPLATES_COLLECTION = '__chat_goal_templates';

export class GoalTemplateService {
  readonly store: DocumentStore;

  constructor(now: () => number) {
    this.store = new DocumentStore(GOAL_TEMPLATES_COLLECTION, 'goal template', now);
  }

  /** `{templates}`: the list's member name on the wire (protocol.md 2.13). */
  async list(session: Session): Promise<{ templates: Doc[] }> {
    return { templates: await this.store.list(session) };
  }

  get(session: Session, id: string): Doc {
    return this.store.get(session, id);
  }

  create(session: Session, body: Record<string, unknown>): Promise<Doc> {
    const members = clientMembers(body, [], 'goal template');
    checkStatus(members);
    return this.store.create(session, { status: 'active', ...members });
  }

  update(session: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    checkStatus(body);
    return this.store.change(session, id, (goalTemplate) => ({
      ...goalTemplate,
      ...clientMembers(body, [], 'goal template', goalTemplate),
    }));
  }

  delete(session: Session, id: string) {
    return this.store.delete(session, id);
  }
}

function checkStatus(body: Record<string, unknown>): void {
  if (body.status !== undefined && typeof body.status !== 'string') throw new InvalidInput("'status' must be a string");
}
