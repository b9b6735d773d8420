/**
 * Bounded Levenshtein distance (insert, delete, substitute; cost 1 each),
 * for checking fuzzy candidates the vocabulary lookup proposed.
 *
 * Stops as soon as every cell of a row exceeds the bound, so it costs
 * O(|a|·|b|) at worst and much less for distant strings. Works on UTF-16
 * code units; it does not count transpositions as one edit.
 */

/**
 * The edit distance between `a` and `b` when it is at most `max`; otherwise
 * `max + 1`. REQUIRES: `max` is a non-negative integer.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const cell = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(cell);
      if (cell < rowMin) rowMin = cell;
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return Math.min(previous[b.length]!, max + 1);
}
