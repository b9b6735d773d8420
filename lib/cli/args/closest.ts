/**
 * "Did you mean": the known word closest to a mistyped one, by edit distance
 * (insertions, deletions, substitutions and swaps of neighbours each cost 1).
 * A word is suggested only when it is close enough to be a likely typo, or
 * when the mistyped word is a prefix of exactly one known word (`--data`).
 */

/** Optimal string alignment distance between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate most likely meant by `word`, or undefined when none is close:
 * within a third of the word's length (at least 1, at most 3 edits), ties
 * going to the earlier candidate.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word, name);
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  if (best) return best.name;
  const prefixed = word.length >= 2 ? candidates.filter((c) => c.startsWith(word)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
