/**
 * A first pass over a pattern for what the translation needs before it
 * reaches each part: how many capturing groups the whole pattern has (`\2`
 * is a backreference only if it has two, groups further right included),
 * whether any group is named (which makes `\k` a backreference), how deep
 * its groups nest, and the pattern with RE2's group syntax (`(?i)`,
 * `(?s:...)`, `(?P<name>...)`) spelt as JavaScript groups, for V8's syntax
 * check. Classes and escapes are skipped, so `[(]` and `\(` open nothing.
 * Linear, without recursion.
 */

export interface Outline {
  /** Capturing groups: `(...)` and named ones. */
  readonly groups: number;
  /** Whether a group is named, `(?<name>...)` or RE2's `(?P<name>...)`. */
  readonly named: boolean;
  /** Deepest nesting of parentheses: `((a))` is 2. */
  readonly depth: number;
  /** The pattern as V8 can parse it: `(?i)` as `(?:)`, `(?i:` as `(?:`, `(?P<` as `(?<`. */
  readonly javaScript: string;
}

/** A flags group, `(?i)` or `(?is-m:`, RE2's (and, for the second form, newer JavaScript's) syntax. */
export const FLAGS_GROUP = /\(\?([A-Za-z]*)(?:-([A-Za-z]*))?([:)])/y;

export function outline(pattern: string): Outline {
  let groups = 0;
  let named = false;
  let depth = 0;
  let deepest = 0;
  let javaScript = '';
  let copied = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') i++;
    else if (char === '[') i = classEnd(pattern, i);
    else if (char === ')') depth = Math.max(depth - 1, 0);
    else if (char === '(') {
      deepest = Math.max(deepest, ++depth);
      if (pattern[i + 1] !== '?') groups++;
      else if (isNamedGroup(pattern, i)) {
        groups++;
        named = true;
      }
      const spelt = javaScriptGroup(pattern, i);
      if (spelt !== undefined) {
        javaScript += pattern.slice(copied, i) + spelt.text;
        copied = i + spelt.length;
        if (spelt.text === '(?:)') depth--;
        i = copied - 1;
      }
    }
  }
  return { groups, named, depth: deepest, javaScript: javaScript + pattern.slice(copied) };
}

/** The JavaScript spelling of the RE2 group syntax opening at `index`, and the length it replaces. */
function javaScriptGroup(pattern: string, index: number): { text: string; length: number } | undefined {
  if (pattern.startsWith('(?P<', index)) return { text: '(?<', length: 4 };
  FLAGS_GROUP.lastIndex = index;
  const flags = FLAGS_GROUP.exec(pattern);
  if (flags === null) return undefined;
  return { text: flags[3] === ')' ? '(?:)' : '(?:', length: flags[0].length };
}

/** Whether the `(` at `index` opens `(?<name>` or `(?P<name>` (not lookbehind). */
export function isNamedGroup(pattern: string, index: number): boolean {
  const at = pattern.startsWith('(?P<', index) ? index + 4 : pattern.startsWith('(?<', index) ? index + 3 : -1;
  return at !== -1 && pattern[at] !== '=' && pattern[at] !== '!';
}

/**
 * Index of the `]` closing the class opened at `start` (a `]` right after `[` or `[^` closes it), or the last index.
 */
function classEnd(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === '^') index++;
  while (index < pattern.length && pattern[index] !== ']') index += pattern[index] === '\\' ? 2 : 1;
  return Math.min(index, pattern.length - 1);
}
