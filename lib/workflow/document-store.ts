/**
 * Free-form records (goals, goal templates, tasks, agents, schedules) kept in an internal
 * collection through the caller's engine `Session`, so each change is an
 * ordinary durable, logged, snapshotted and replicated record write.
 *
 * A record is stored as exact JSON text in one `document` field (like the
 * stored functions), so it comes back exactly as sent: a member that looks
 * like a typed wrapper (`{type, value}`, a task's `{type: "http", ...}`
 * action) or a date string is never reinterpreted as a typed value. The
 * record id is the engine's. Changes to one record run one at a time
 * (`change`), so two lifecycle calls racing on one record cannot both pass
 * the state check.
 */
import { InvalidInput, NotFound } from '../errors.js';
import { fromJson, isPlainObject, toJson, type Fields, type Query, type Session } from '../engine/index.js';

const ALL: Query = Object.freeze({ sort: [], skip: 0, bypassCache: false, bypassRipple: false });

/** A stored record: the client's members plus the server's. */
export type Doc = Record<string, unknown> & {
  readonly id: string;
  readonly status: string;
  readonly created_at: string;
  readonly updated_at: string;
};

/** Members the server manages on every record; a create or update body may not set them. */
export const SERVER_MEMBERS: readonly string[] = ['id', 'created_at', 'updated_at'];

const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export class DocumentStore {
  private locks = new Map<string, Promise<unknown>>();

  constructor(
    readonly collection: string,
    readonly noun: string,
    private readonly now: () => number,
  ) {}

  at(): string {
    return new Date(this.now()).toISOString();
  }

  /** Every record, oldest first (records made in one millisecond in the order they were stored). */
  async list(session: Session): Promise<Doc[]> {
    let rows: Fields[];
    try {
      rows = await session.find(this.collection, ALL);
    } catch (err) {
      if (err instanceof NotFound) return []; // nothing stored yet: the collection is made by the first write
      throw err;
    }
    return rows.flatMap((r) => docOf(r) ?? []).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  find(session: Session, id: string): Doc | undefined {
    try {
      return docOf(session.findById(this.collection, id));
    } catch (err) {
      if (err instanceof NotFound) return undefined;
      throw err;
    }
  }

  /** 404 "<Noun> '<id>' not found". */
  get(session: Session, id: string): Doc {
    const found = this.find(session, id);
    if (!found) throw new NotFound(`${capitalized(this.noun)} '${id}' not found`);
    return found;
  }

  /** Stores `members` (no id) with `status` and fresh timestamps; resolves to the record. */
  async create(session: Session, members: Record<string, unknown>): Promise<Doc> {
    const at = this.at();
    const body = { ...members, created_at: at, updated_at: at };
    const id = await session.insert(this.collection, { document: toJson(body) });
    return { ...body, id } as Doc;
  }

  /**
   * Reads the record, lets `next` compute its new members (it may throw to
   * refuse), and writes them with a new `updated_at`; one change per record
   * at a time.
   */
  change(session: Session, id: string, next: (current: Doc) => Record<string, unknown>): Promise<Doc> {
    return this.serially(id, async () => {
      const current = this.get(session, id);
      const written: Record<string, unknown> = {
        ...next(current),
        created_at: current.created_at,
        updated_at: this.at(),
      };
      const { id: _id, ...members } = written;
      await session.update(this.collection, id, { document: toJson(members) });
      return { ...members, id } as Doc;
    });
  }

  delete(session: Session, id: string): Promise<Record<string, unknown>> {
    return this.serially(id, async () => {
      this.get(session, id);
      await session.delete(this.collection, id);
      return { status: 'deleted', id };
    });
  }

  /** Runs `work` after every earlier change of record `id` has settled. */
  private serially<T>(id: string, work: () => Promise<T>): Promise<T> {
    const run = (this.locks.get(id) ?? Promise.resolve()).catch(() => {}).then(work);
    this.locks.set(id, run);
    void run
      .catch(() => {})
      .finally(() => {
        if (this.locks.get(id) === run) this.locks.delete(id);
      });
    return run;
  }
}

/** The record a stored row holds; undefined for a row that is not one of ours (an admin's raw write). */
function docOf(row: Fields): Doc | undefined {
  if (typeof row.id !== 'string' || typeof row.document !== 'string') return undefined;
  let doc: unknown;
  try {
    doc = fromJson(row.document);
  } catch {
    return undefined;
  }
  if (
    !isPlainObject(doc) ||
    typeof doc.status !== 'string' ||
    typeof doc.created_at !== 'string' ||
    typeof doc.updated_at !== 'string'
  )
    return undefined;
  return { ...doc, id: row.id } as Doc;
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A create or update body as members to store: a JSON object whose member
 * names (at any depth) are not prototype keys, and which sets none of the
 * server's members nor those `managed` by the lifecycle (400 naming the
 * first one). An update may echo such a member unchanged (a client sending
 * back the record it read): it is dropped.
 */
export function clientMembers(
  body: Record<string, unknown>,
  managed: readonly string[],
  noun: string,
  current?: Record<string, unknown>,
): Record<string, unknown> {
  checkNames(body, '');
  const out = { ...body };
  for (const name of [...SERVER_MEMBERS, ...managed]) {
    if (!Object.hasOwn(out, name)) continue;
    if (current && sameJson(out[name], current[name])) delete out[name];
    else throw new InvalidInput(`'${name}' is managed by the server and cannot be set on a ${noun}`);
  }
  return out;
}

export function sameJson(left: unknown, right: unknown): boolean {
  return left !== undefined && right !== undefined && toJson(left) === toJson(right);
}

function checkNames(value: unknown, path: string): void {
  if (Array.isArray(value)) value.forEach((item, index) => checkNames(item, `${path}[${index}]`));
  else if (isPlainObject(value)) {
    for (const [name, member] of Object.entries(value)) {
      const at = path ? `${path}.${name}` : name;
      if (FORBIDDEN_NAMES.has(name)) throw new InvalidInput(`'${at}' is not an allowed member name`);
      checkNames(member, at);
    }
  }
}
