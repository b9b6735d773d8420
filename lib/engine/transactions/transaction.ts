/**
 * One optimistic transaction: its staged operations (an immutable cons list,
 * so a savepoint is just a saved reference), the versions it observed, what
 * it read (records by id, and at Serializable the predicates of its queries),
 * and a cached view of its writes. Nothing here touches committed
 * state; see transaction-manager.ts for staging, reads and commit.
 */
import type { PreparedWrite } from '../records/records.js';
import type { ActionStep } from '../records/update-actions.js';
import type { IsolationLevel } from '../admin/settings.js';
import type { CachedView } from './cached-view.js';
import { ReadPredicates } from './read-predicates.js';

export type StagedOp =
  | {
      readonly kind: 'insert';
      readonly c: string;
      readonly id: string;
      readonly p: PreparedWrite;
      readonly bypassRipple: boolean;
    }
  | {
      readonly kind: 'update';
      readonly c: string;
      readonly id: string;
      readonly p: PreparedWrite;
      readonly bypassRipple: boolean;
    }
  | {
      readonly kind: 'actions';
      readonly c: string;
      readonly id: string;
      readonly steps: readonly ActionStep[];
      readonly bypassRipple: boolean;
    }
  | { readonly kind: 'delete'; readonly c: string; readonly id: string; readonly bypassRipple: boolean };

/** Immutable list, newest first. */
export interface OpList {
  readonly op: StagedOp;
  readonly prev: OpList | undefined;
  readonly size: number;
}

export function toArray(list: OpList | undefined): StagedOp[] {
  const out: StagedOp[] = [];
  for (let n = list; n; n = n.prev) out.push(n.op);
  return out.reverse();
}

export const recordKey = (c: string, id: string) => `${c}\u0000${id}`;
export const splitKey = (k: string): [string, string] => {
  const i = k.indexOf('\u0000');
  return [k.slice(0, i), k.slice(i + 1)];
};

export class Transaction {
  ops: OpList | undefined;
  lastActivity: number;
  readonly savepoints = new Map<string, OpList | undefined>();
  /** Version of each record when this transaction first saw it (null: absent). */
  readonly observed = new Map<string, number | null>();
  /** Records read by id (validated from RepeatableRead up). */
  readonly pointReads = new Set<string>();
  /** Predicates of its finds and searches (recorded and validated at Serializable only). */
  readonly predicates = new ReadPredicates();
  /** Committed state with `ops` replayed, while still current (see cached-view.ts and TransactionManager.viewOf). */
  view: CachedView<OpList | undefined> | undefined;
  /** Statements that yield the event loop while they stage (a large batch); a commit waits for them. */
  readonly slicedStatements = new Set<Promise<unknown>>();

  constructor(
    readonly id: string,
    readonly level: IsolationLevel,
    readonly createdAt: number,
    readonly timeoutSecs: number,
    /** The API key that began it; only that key (or an admin) may use it. */
    readonly owner?: string,
  ) {
    this.lastActivity = createdAt;
  }

  get operationsCount(): number {
    return this.ops?.size ?? 0;
  }

  isExpired(now: number): boolean {
    return now >= this.createdAt + this.timeoutSecs * 1000;
  }

  stage(op: StagedOp): void {
    this.ops = { op, prev: this.ops, size: this.operationsCount + 1 };
  }

  observe(key: string, version: number | null): void {
    if (!this.observed.has(key)) this.observed.set(key, version);
  }
}
