/**
 * A first pass over a pattern for what the meaning of its escapes depends
 * on before the translation reaches them: how many capturing groups the
 * whole pattern has (`\2` is a backreference only if it has two, groups
 * further right included), whether any group is named (which makes `\k` a
 * backreference), and how deep its groups nest. Classes and escapes are
 * skipped, so `[(]` and `\(` open nothing. Linear, without recursion.
 */

export interface Outline {
  /** Capturing groups: `(...)` and named ones. */
  readonly groups: number;
  /** Whether a group is named, `(?<name>...)` or RE2's `(?P<name>...)`. */
  readonly named: boolean;
  /** Deepest nesting of parentheses: `((a))` is 2. */
  readonly depth: number;
}

export function outline(p: string): Outline {
  let groups = 0;
  let named = false;
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(p, i);
    else if (c === ')') depth = Math.max(depth - 1, 0);
    else if (c === '(') {
      deepest = Math.max(deepest, ++depth);
      if (p[i + 1] !== '?') groups++;
      else if (isNamedGroup(p, i)) { groups++; named = true; }
    }
  }
  return { groups, named, depth: deepest };
}

/** Whether the `(` at `i` opens `(?<name>` or `(?P<name>` (not lookbehind). */
export function isNamedGroup(p: string, i: number): boolean {
  const at = p.startsWith('(?P<', i) ? i + 4 : p.startsWith('(?<', i) ? i + 3 : -1;
  return at !== -1 && p[at] !== '=' && p[at] !== '!';
}

/** Index of the `]` closing the class opened at `start` (a `]` right after `[` or `[^` closes it), or the last index. */
function classEnd(p: string, start: number): number {
  let i = start + 1;
  if (p[i] === '^') i++;
  while (i < p.length && p[i] !== ']') i += p[i] === '\\' ? 2 : 1;
  return Math.min(i, p.length - 1);
}
