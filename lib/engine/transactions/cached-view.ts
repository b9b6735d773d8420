/**
 * The cached view of an open transaction: committed state with its staged
 * operations replayed (a WorkingView), and what that replay depended on.
 *
 * A staged operation's effects depend only on its own collection: its meta
 * (existence, schema), the target record, and the other records (unique
 * checks, primary-key aliases). So the view holds while the operation list
 * is the same and none of the collections it wrote has changed since
 * (CollectionState.changeSeq). A commit to any other collection leaves it
 * valid: the WorkingView reads untouched collections straight from committed
 * state, so the transaction sees that commit without a replay. Keying on the
 * global seq instead made every commit anywhere replay every open
 * transaction's operations on its next statement.
 */
import type { DbState } from '../write/state.js';
import type { WorkingView } from '../write/working-view.js';

/** `Ops` is the transaction's operation list, compared by identity (it is immutable). */
export class CachedView<Ops> {
  /** Each collection the operations wrote -> its changeSeq when replayed (undefined: it did not exist). */
  private readonly covered = new Map<string, number | undefined>();

  constructor(
    private readonly state: DbState,
    readonly view: WorkingView,
    private ops: Ops,
  ) {}

  /** True while `ops` is the list replayed here and no collection it wrote has changed. */
  isCurrent(ops: Ops): boolean {
    if (ops !== this.ops) return false;
    for (const [collection, seq] of this.covered)
      if (this.state.collections.get(collection)?.changeSeq !== seq) return false;
    return true;
  }

  /**
   * Records that the view now reflects the operations `ops`, the newest of
   * which wrote `collection` as committed now. REQUIRES: no commit since the view
   * was last checked current (callers stage synchronously after the check).
   */
  extend(ops: Ops, collection: string): void {
    this.cover(collection);
    this.ops = ops;
  }

  /** Notes that replayed effects depend on collection `collection` as committed now. */
  cover(collection: string): void {
    if (!this.covered.has(collection)) this.covered.set(collection, this.state.collections.get(collection)?.changeSeq);
  }
}
