/**
 * Long CPU work cut into slices, so that one large request (a 10,000-record
 * batch) does not hold the event loop: between slices the server answers
 * other requests. A slice ends once it has run SLICE_MS; callers check
 * `due` at points where yielding is safe for them.
 */
export const SLICE_MS = 4;

export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class Slicer {
  private started = performance.now();

  /** True once the current slice has run its time. */
  due(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }

  /** Yields to the event loop when the slice is used up. */
  async pause(): Promise<void> {
    if (!this.due()) return;
    await yieldToLoop();
    this.started = performance.now();
  }
}
