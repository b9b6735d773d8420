/** A line diff of two texts (longest common subsequence), for comparing versions of a definition. */

export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
  /** The line's number in the old text (same, removed) or the new one (added). */
  line: number;
}

/** Changed middles longer than this many lines on either side are compared line by line without alignment. */
const MAX_LINES = 2000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const allA = before.split('\n');
  const allB = after.split('\n');
  // The common head and tail need no alignment: only the changed middle goes through the table.
  let head = 0;
  while (head < allA.length && head < allB.length && allA[head] === allB[head]) head++;
  let tail = 0;
  while (
    tail < allA.length - head &&
    tail < allB.length - head &&
    allA[allA.length - 1 - tail] === allB[allB.length - 1 - tail]
  )
    tail++;
  const same = (from: number, to: number) =>
    allA.slice(from, to).map((text, k): DiffLine => ({ kind: 'same', text, line: from + k + 1 }));
  const middle = middleDiff(allA.slice(head, allA.length - tail), allB.slice(head, allB.length - tail), head);
  return [...same(0, head), ...middle, ...same(allA.length - tail, allA.length)];
}

/** The diff of two line lists whose first lines are line `offset + 1` of their texts. */
function middleDiff(a: string[], b: string[], offset: number): DiffLine[] {
  if (a.length > MAX_LINES || b.length > MAX_LINES) return naive(a, b, offset);
  // lcs[i][j]: the common subsequence length of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]!, line: offset + i + 1 });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
      out.push({ kind: 'removed', text: a[i]!, line: offset + i + 1 });
      i++;
    } else {
      out.push({ kind: 'added', text: b[j]!, line: offset + j + 1 });
      j++;
    }
  }
  for (; i < a.length; i++) out.push({ kind: 'removed', text: a[i]!, line: offset + i + 1 });
  for (; j < b.length; j++) out.push({ kind: 'added', text: b[j]!, line: offset + j + 1 });
  return out;
}

function naive(a: string[], b: string[], offset: number): DiffLine[] {
  const out: DiffLine[] = [];
  for (let k = 0; k < Math.max(a.length, b.length); k++) {
    const line = offset + k + 1;
    if (a[k] === b[k]) out.push({ kind: 'same', text: a[k]!, line });
    else {
      if (k < a.length) out.push({ kind: 'removed', text: a[k]!, line });
      if (k < b.length) out.push({ kind: 'added', text: b[k]!, line });
    }
  }
  return out;
}

/** True when the diff changes nothing. */
export function unchanged(diff: DiffLine[]): boolean {
  return diff.every((d) => d.kind === 'same');
}
