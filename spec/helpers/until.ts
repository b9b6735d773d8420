/** Polls `check` every `pollMs` until it holds; throws naming `what` after `ms`. */
export async function until(what: string, check: () => boolean, ms: number, pollMs = 20): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Counts event-loop turns from now; the returned function stops counting and says how many there were. */
export function countTurns(): () => number {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return () => {
    counting = false;
    return turns;
  };
}
