/**
 * The server-wide ceiling on concurrent batch operations. Past it a batch
 * request is answered 503 with the body the clients know:
 * `{error, active_operations, max_concurrent, retry_after_seconds}`.
 */
import { Overloaded } from '../../../errors.js';

export class BatchGate {
  private active = 0;

  /** Takes a slot or throws the 503. Release it with the returned function. */
  acquire(max: number): () => void {
    if (this.active >= max) {
      throw new Overloaded('Too many concurrent batch operations; retry shortly', this.active, max, 1);
    }
    this.active += 1;
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.active -= 1;
      }
    };
  }
}
