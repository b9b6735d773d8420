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
  | { readonly set: UnitSet; readonly negated: boolean; readonly next: number }
  | { readonly problem: string };

type Member = { readonly unit: number; readonly next: number } | { readonly set: UnitSet; readonly next: number } | { readonly problem: string };

/** The class whose `[` is at `start`. */
export function readClass(p: string, start: number, ctx: Omit<EscapeContext, 'inClass'>): ClassRead {
  const escapes: EscapeContext = { ...ctx, inClass: true };
  let i = start + 1;
  const negated = p[i] === '^';
  if (negated) i++;
  let set = UnitSet.EMPTY;
  while (i < p.length && p[i] !== ']') {
    const from = readMember(p, i, escapes);
    if ('problem' in from) return from;
    i = from.next;
    if (p[i] === '-' && p[i + 1] !== undefined && p[i + 1] !== ']') {
      const to = readMember(p, i + 1, escapes);
      if ('problem' in to) return to;
      if ('unit' in from && 'unit' in to) {
        if (from.unit > to.unit) return { problem: 'range out of order in character class' };
        set = set.union(UnitSet.of([[from.unit, to.unit]]));
      } else {
        set = set.union(asSet(from)).union(UnitSet.unit(0x2d)).union(asSet(to));
      }
      i = to.next;
    } else {
      set = set.union(asSet(from));
    }
  }
  if (i >= p.length) return { problem: 'unterminated character class' };
  return { set, negated, next: i + 1 };
}

function readMember(p: string, i: number, ctx: EscapeContext): Member {
  if (p[i] !== '\\') return { unit: p.charCodeAt(i), next: i + 1 };
  const esc = readEscape(p, i, ctx);
  if (esc.kind === 'problem') return esc;
  if (esc.kind === 'unit') return esc;
  if (esc.kind === 'set') return esc;
  return { problem: 'an assertion cannot be a class member' };
}

function asSet(m: { readonly unit: number } | { readonly set: UnitSet }): UnitSet {
  return 'unit' in m ? UnitSet.unit(m.unit) : m.set;
}
