/**
 * Case-insensitive matching as JavaScript does it without the u flag
 * (ECMA-262 Canonicalize): two code units match when their uppercase forms
 * are equal, where a unit whose uppercase is several units (ß is SS) keeps
 * itself, and a non-ASCII unit never takes an ASCII form (ſ is not s, the
 * Kelvin sign is not k). RE2's `(?i)` folds by Unicode's rules, which pair
 * those, so under `(?i)` the translation spells every case variant out
 * itself and RE2 never folds.
 *
 * The variants come from one pass over the 65,536 code units, made the
 * first time a pattern asks for them and then kept: a memo of a
 * pure function of the Unicode tables of this Node, like the pattern cache.
 */
import { type Range, UnitSet } from './unit-set.js';

interface FoldTable {
  /** Code units that have other case variants, ascending. */
  readonly units: readonly number[];
  /** For each of them, every unit with the same canonical form (itself included). */
  readonly variants: ReadonlyMap<number, readonly number[]>;
}

let table: FoldTable | undefined;

function canonicalize(unit: number): number {
  const upper = String.fromCharCode(unit).toUpperCase();
  if (upper.length !== 1) return unit;
  const upperUnit = upper.charCodeAt(0);
  return unit >= 128 && upperUnit < 128 ? unit : upperUnit;
}

function foldTable(): FoldTable {
  if (table !== undefined) return table;
  const byCanonical = new Map<number, number[]>();
  for (let unit = 0; unit <= 0xffff; unit++) {
    const canonical = canonicalize(unit);
    const same = byCanonical.get(canonical);
    if (same === undefined) byCanonical.set(canonical, [unit]);
    else same.push(unit);
  }
  const variants = new Map<number, readonly number[]>();
  for (const same of byCanonical.values()) if (same.length > 1) for (const unit of same) variants.set(unit, same);
  table = { units: [...variants.keys()].sort((a, b) => a - b), variants };
  return table;
}

/** `set` with every case variant of its members: what it matches under the i flag. */
export function caseInsensitive(set: UnitSet): UnitSet {
  const { units, variants } = foldTable();
  const added: Range[] = [];
  for (const [lo, hi] of set.ranges) {
    for (let k = firstAtLeast(units, lo); k < units.length && units[k]! <= hi; k++) {
      for (const variant of variants.get(units[k]!)!) added.push([variant, variant]);
    }
  }
  return added.length === 0 ? set : set.union(UnitSet.of(added));
}

function firstAtLeast(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
