/**
 * Reads a character class of a JavaScript pattern without the u flag into a
 * set of code units: `]` right after `[` or `[^` closes it (`[]` matches
 * nothing, `[^]` anything), `a-z` is a range of code units, and a range
 * with a class escape at either end (`[\d-z]`, `[a-\s]`) is read as Annex B
 * reads it: the escape, a `-`, and the other end. RE2 would refuse or
 * misread several of these spellings, so the set is written out afresh.
 */
import { type EscapeContext, readEscape } from './read-escape.js';
import { UnitSet } from './units/unit-set.js';

export type ClassRead =
  { readonly set: UnitSet; readonly negated: boolean; readonly next: number } | { readonly problem: string };

type Member =
  | { readonly unit: number; readonly next: number }
  | { readonly set: UnitSet; readonly next: number }
  | { readonly problem: string };

/** The class whose `[` is at `start`. */
export function readClass(pattern: string, start: number, ctx: Omit<EscapeContext, 'inClass'>): ClassRead {
  const escapes: EscapeContext = { ...ctx, inClass: true };
  let index = start + 1;
  const negated = pattern[index] === '^';
  if (negated) index++;
  let set = UnitSet.EMPTY;
  while (index < pattern.length && pattern[index] !== ']') {
    const from = readMember(pattern, index, escapes);
    if ('problem' in from) return from;
    index = from.next;
    if (pattern[index] === '-' && pattern[index + 1] !== undefined && pattern[index + 1] !== ']') {
      const to = readMember(pattern, index + 1, escapes);
      if ('problem' in to) return to;
      if ('unit' in from && 'unit' in to) {
        if (from.unit > to.unit) return { problem: 'range out of order in character class' };
        set = set.union(UnitSet.of([[from.unit, to.unit]]));
      } else {
        set = set.union(asSet(from)).union(UnitSet.unit(0x2d)).union(asSet(to));
      }
      index = to.next;
    } else {
      set = set.union(asSet(from));
    }
  }
  if (index >= pattern.length) return { problem: 'unterminated character class' };
  return { set, negated, next: index + 1 };
}

function readMember(pattern: string, index: number, ctx: EscapeContext): Member {
  if (pattern[index] !== '\\') return { unit: pattern.charCodeAt(index), next: index + 1 };
  const esc = readEscape(pattern, index, ctx);
  if (esc.kind === 'problem') return esc;
  if (esc.kind === 'unit') return esc;
  if (esc.kind === 'set') return esc;
  return { problem: 'an assertion cannot be a class member' };
}

function asSet(member: { readonly unit: number } | { readonly set: UnitSet }): UnitSet {
  return 'unit' in member ? UnitSet.unit(member.unit) : member.set;
}
