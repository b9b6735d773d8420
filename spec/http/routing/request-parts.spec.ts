/** Named arguments: the plain-pairs path reads exactly what URLSearchParams reads; path parameters win. */
import { expect } from 'chai';
import { requestArgs } from '../../../lib/http/routing/request-parts.js';

/** What URLSearchParams makes of a query, in requestArgs' shape. */
function reference(qs: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(qs)) {
    const prev = out[name];
    out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

describe('requestArgs', () => {
  it('reads plain pairs, repeated names and empty values as URLSearchParams does', () => {
    for (const qs of [
      'transaction_id=3f1c9a2e-0b7d-4e8a-9f00-1a2b3c4d5e6f',
      'limit=10&skip=20',
      'select_fields=a,b&select_fields=c',
      'a=&b=1',
      'at=2026-11-29T07:00:00Z',
      'x.y~z=1',
    ]) {
      expect({ ...requestArgs(qs) }, qs).to.deep.equal({ ...reference(qs) });
    }
  });

  it('leaves anything encoded, or odd, to URLSearchParams', () => {
    for (const qs of ['q=a+b', 'q=%41%2B', 'a', 'a=1&&b=2', '=x', 'a=1=2', 'k=v;w', '__proto__=1', 'a=%zz']) {
      expect({ ...requestArgs(qs) }, qs).to.deep.equal({ ...reference(qs) });
    }
  });

  it('holds no prototype: a member named __proto__ or constructor is just a name', () => {
    const q = requestArgs('constructor=1&__proto__=2');
    expect(Object.getPrototypeOf(q)).to.equal(null);
    expect(q.constructor).to.equal('1');
    expect(q.__proto__).to.equal('2');
  });

  it('takes path parameters over query parameters of the same name', () => {
    const args = requestArgs('id=from-query&id=again&limit=5&collection=other', { collection: 'users', id: 'u1' });
    expect({ ...args }).to.deep.equal({ collection: 'users', id: 'u1', limit: '5' });
    expect({ ...requestArgs('q=%41&id=x', { id: 'u1' }) }).to.deep.equal({ id: 'u1', q: 'A' });
    expect({ ...requestArgs('', { id: 'u1' }) }).to.deep.equal({ id: 'u1' });
  });

  it('reads a random mix of plain and encoded queries as URLSearchParams does', () => {
    const alphabet = 'ab_-.~:,=&%+2 ';
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      const qs = Array.from({ length: 1 + (next() % 12) }, () => alphabet[next() % alphabet.length]).join('');
      let expected: Record<string, string | string[]>;
      try {
        expected = reference(qs);
      } catch {
        continue;
      }
      expect({ ...requestArgs(qs) }, qs).to.deep.equal({ ...expected });
    }
  });
});
