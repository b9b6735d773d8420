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

  async list(db: Session): Promise<{ templates: Doc[] }> {
    return { templates: await this.store.list(db) };
  }

  get(db: Session, id: string): Doc {
    return this.store.get(db, id);
  }

  create(db: Session, body: Record<string, unknown>): Promise<Doc> {
    const members = clientMembers(body, [], 'goal template');
    checkStatus(members);
    return this.store.create(db, { status: 'active', ...members });
  }

  update(db: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    checkStatus(body);
    return this.store.change(db, id, (t) => ({ ...t, ...clientMembers(body, [], 'goal template', t) }));
  }

  delete(db: Session, id: string) {
    return this.store.delete(db, id);
  }
}

function checkStatus(body: Record<string, unknown>): void {
  if (body.status !== undefined && typeof body.status !== 'string') throw new InvalidInput("'status' must be a string");
}
