import { expect } from 'chai';
import { caseInsensitive } from '../../../../lib/engine/pattern/units/case-fold.js';
import { UnitSet } from '../../../../lib/engine/pattern/units/unit-set.js';

const hex = (u: number): string => `\\u${u.toString(16).padStart(4, '0')}`;

/** The code units a set holds, listed. */
function unitsOf(set: UnitSet): number[] {
  return set.ranges.flatMap(([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, k) => lo + k));
}

describe('caseInsensitive', () => {
  it('pairs what JavaScript without the u flag pairs, and not what Unicode folding adds', () => {
    const variants = (c: string): string =>
      String.fromCharCode(...unitsOf(caseInsensitive(UnitSet.unit(c.charCodeAt(0)))));
    expect(variants('k')).to.equal('Kk');
    expect(variants('\u212a'), 'Kelvin sign').to.equal('\u212a');
    expect(variants('s')).to.equal('Ss');
    expect(variants('ſ')).to.equal('ſ');
    expect(variants('ß'), 'uppercase is two units').to.equal('ß');
    expect(variants('σ')).to.equal('Σςσ');
    expect(variants('ǅ')).to.equal('Ǆǅǆ');
    expect(variants('1')).to.equal('1');
  });

  it('agrees with V8 for every code unit that has a case mapping (each against all 65,536)', function () {
    this.timeout(60_000);
    const all = String.fromCharCode(...Array.from({ length: 0x10000 }, (_, u) => u));
    const mapped = Array.from({ length: 0x10000 }, (_, u) => u).filter((u) => {
      const c = String.fromCharCode(u);
      return c.toUpperCase() !== c || c.toLowerCase() !== c;
    });
    expect(mapped.length).to.be.above(2000);
    const differing: string[] = [];
    for (const u of mapped) {
      const v8 = [...all.matchAll(new RegExp(hex(u), 'gi'))].map((m) => m.index);
      const ours = unitsOf(caseInsensitive(UnitSet.unit(u)));
      if (v8.join() !== ours.join())
        differing.push(`${hex(u)}: V8 ${v8.map(hex).join(' ')}, ours ${ours.map(hex).join(' ')}`);
    }
    expect(differing, differing.slice(0, 10).join('\n')).to.deep.equal([]);
  });
});
