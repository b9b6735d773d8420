/**
 * Long CPU work cut into slices, so that one large request (a 10,000-record
 * batch) does not hold the event loop: between slices the server answers
 * other requests. A slice ends once it has run SLICE_MS; callers check
 * `due` at points where yielding is safe for them.
 */
export const SLICE_MS = 4;

/**
 * Lets the event loop run, then resumes. Whatever registered with
 * `beforeLongWorkResumes` runs first: the HTTP layer writes the answers it
 * computed while this work was away (http/transport/answer-batch.ts), which
 * would otherwise wait in the same check phase behind the next slice.
 */
export function yieldToLoop(): Promise<void> {
  // Two immediates: from the poll phase (where a request's body arrives) one would resume in the same turn's
  // check phase, before the loop polls again, so requests that came in meanwhile would still wait.
  return new Promise((resolve) =>
    setImmediate(() =>
      setImmediate(() => {
        resuming();
        resolve();
      }),
    ),
  );
}

const resumeHooks: Array<() => void> = [];
const slicingHooks: Array<() => void> = [];

/**
 * Registers `fn` (which must not throw) to run each time sliced work
 * yields (yieldSlicedWork): work that has run a whole slice and will run
 * more (a large body's decode, a large batch, a long scan), unlike the
 * write queue's or a snapshot's turns, which yield
 * between short steps. The start command uses it to lower V8's helper
 * threads while such work runs (cli/helper-priority.ts).
 */
export function whileSlicedWorkRuns(fn: () => void): void {
  slicingHooks.push(fn);
}

/**
 * yieldToLoop() for work that has run a whole slice and will run more (a Slicer's, a large body's decode): runs the
 * whileSlicedWorkRuns hooks first.
 */
export async function yieldSlicedWork(): Promise<void> {
  for (const fn of slicingHooks) fn();
  await yieldToLoop();
}

/** Registers `fn` (which must not throw) to run each time yielded work resumes. */
export function beforeLongWorkResumes(fn: () => void): void {
  resumeHooks.push(fn);
}

/** Runs the resume hooks; for work that schedules its own turns (background index builds). */
export function resuming(): void {
  for (const fn of resumeHooks) fn();
}

export class Slicer {
  private started = performance.now();
  private units = 0;

  /** `checkEvery`: units of work (items, vectors) between looks at the clock, for loops whose units are cheap. */
  constructor(private readonly checkEvery = 64) {}

  /** Counts one unit of work; true on every `checkEvery`-th, when the loop should call pause(). */
  counted(): boolean {
    return ++this.units % this.checkEvery === 0;
  }

  /** True once the current slice has run its time. */
  due(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }

  /** Yields to the event loop when the slice is used up. */
  async pause(): Promise<void> {
    if (!this.due()) return;
    await yieldSlicedWork();
    this.started = performance.now();
  }
}
