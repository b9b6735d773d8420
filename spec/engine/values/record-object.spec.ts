/**
 * New stored records are parsed from a template of their keys
 * (recordObject), so V8 keeps every field inside the object: smaller than a
 * record built by spreading, and the same keys in the same order.
 */
import { expect } from 'chai';
import { heapSavedPerRecord } from '../../helpers/heap.js';
import { InvalidInput } from '../../../lib/errors.js';
import { fieldFromWire, recordObject, recordShapeOf, shapedObject } from '../../../lib/engine/values/index.js';

const KEYS = ['id', 'name', 'email', 'age', 'city', 'plan', 'score', 'visits', 'active', 'note', 'tags'];

const values = (i: number): unknown[] => [`id${i}`, 'n', 'e', i, 'c', 'p', i + 0.5, i, true, 'note', null];

describe('engine/values/record-object', () => {
  it('makes a fresh object with the keys in order, each null', () => {
    const a = recordObject(['id', 'b', 'a'])!;
    expect(Object.keys(a)).to.deep.equal(['id', 'b', 'a']);
    expect(Object.values(a)).to.deep.equal([null, null, null]);
    a.b = 1;
    expect(recordObject(['id', 'b', 'a'])!.b, 'a new object each time').to.equal(null);
  });

  it('tells apart key lists that would join to the same text', () => {
    expect(recordObject(['id', 'a', 'b'])).to.deep.equal({ id: null, a: null, b: null });
    expect(Object.keys(recordObject(['id', 'a\u0000b'])!)).to.deep.equal(['id', 'a\u0000b']);
    expect(Object.keys(recordObject(['id', 'a', 'b', 'c'])!), 'a longer list through a remembered one').to.deep.equal([
      'id',
      'a',
      'b',
      'c',
    ]);
    expect(Object.keys(recordObject(['id', 'a'])!), 'a shorter list ending inside a remembered one').to.deep.equal([
      'id',
      'a',
    ]);
  });

  it('refuses key lists it cannot template: __proto__', () => {
    expect(recordObject(['id', '__proto__'])).to.equal(undefined);
    expect(recordObject(['id', 'constructor'])).to.deep.equal({ id: null, constructor: null });
    expect(recordObject(['id', 'prototype', 'x'])).to.deep.equal({ id: null, prototype: null, x: null });
  });

  it('starts over after many distinct keys, and still answers every list', () => {
    for (let i = 0; i < 20_000; i++) expect(Object.keys(recordObject(['id', `k${i}`])!)).to.deep.equal(['id', `k${i}`]);
    expect(Object.keys(recordObject(['id', 'k0'])!)).to.deep.equal(['id', 'k0']);
    const wide = Array.from({ length: 3_000 }, (_, i) => `w${i}`);
    for (let round = 0; round < 8; round++)
      expect(Object.keys(recordObject([`r${round}`, ...wide])!)).to.have.length(3_001);
  });

  it('gives a list too long to remember no template', () => {
    expect(recordObject(Array.from({ length: 16_385 }, (_, i) => `k${i}`))).to.equal(undefined);
  });

  it('keeps a frozen 11-field record smaller than one built by spreading', () => {
    const n = 50_000;
    const parsed = (i: number) => {
      const out = recordObject(KEYS)!;
      const v = values(i);
      for (let k = 0; k < KEYS.length; k++) out[KEYS[k]!] = v[k] as never;
      return Object.freeze(out);
    };
    const spread = (i: number) => {
      const fields: Record<string, unknown> = {};
      const v = values(i);
      for (let k = 1; k < KEYS.length; k++) fields[KEYS[k]!] = v[k];
      return Object.freeze({ id: v[0], ...fields });
    };
    const saved = heapSavedPerRecord(n, spread, parsed);
    // At least the property array's header (16 bytes here; 35 per record in the server, whose records carry spare slots
    // too).
    expect(saved.median, `bytes per record saved in each round: ${saved.rounds.join(', ')}`).to.be.greaterThan(10);
  });

  it('makes objects of key lists that alternate, of one length, compiled or not, and after starting over', () => {
    const lists = [
      ['id', 'a', 'tags'],
      ['id', 'a', 'address'],
      ['id', 'b', 'tags'],
    ];
    const keys: string[] = [];
    const values: unknown[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 30; i++) {
        const list = lists[i % 3]!;
        keys.splice(0, keys.length, ...list, 'left over');
        values.splice(0, values.length, i, round, [i], 'left over');
        const made = shapedObject(keys, values, 3);
        expect(Object.keys(made), `round ${round}, ${i}`).to.deep.equal(list);
        expect(Object.values(made)).to.deep.equal([i, round, [i]]);
      }
      // Starts the tree over (and forgets the lists it found last).
      for (let i = 0; i < 20_000; i++) recordObject(['id', `round${round}-${i}`]);
    }
    expect(Object.keys(shapedObject(['__proto__', 'x'], [1, 2], 2))).to.deep.equal(['__proto__', 'x']);
  });

  describe('recordShapeOf', () => {
    const make = (body: Record<string, unknown>, id = 'the-id') => recordShapeOf(body)!.make(body, id, fieldFromWire);

    it('makes the record: id first, then the body keys in order, each converted', () => {
      const record = make({ b: 'x', a: 2, when: '2024-01-02T03:04:05Z', typed: { type: 'Integer', value: 7 } });
      expect(Object.keys(record)).to.deep.equal(['id', 'b', 'a', 'when', 'typed']);
      expect(record).to.deep.equal({
        id: 'the-id',
        b: 'x',
        a: 2,
        when: fieldFromWire('2024-01-02T03:04:05Z', 'when'),
        typed: 7,
      });
      expect(make({ b: 'y', a: 3 }, 'other'), 'a new object each time').to.deep.equal({ id: 'other', b: 'y', a: 3 });
    });

    it('answers the shape of each body, not the last one asked for', () => {
      expect(Object.keys(make({ a: 1, b: 2 }))).to.deep.equal(['id', 'a', 'b']);
      expect(Object.keys(make({ b: 2, a: 1 }))).to.deep.equal(['id', 'b', 'a']);
      expect(Object.keys(make({ a: 1 }))).to.deep.equal(['id', 'a']);
      expect(Object.keys(make({ a: 1, b: 2, c: 3 }))).to.deep.equal(['id', 'a', 'b', 'c']);
      expect(Object.keys(make({}))).to.deep.equal(['id']);
      expect(make(Object.assign(Object.create(null) as object, { a: 1 }))).to.deep.equal({ id: 'the-id', a: 1 });
    });

    it('keeps any key text a key, quotes and code included', () => {
      const keys = [`"}); throw 1; ({"`, "'", '\\', '\u2028', 'a\u0000b', '0', '${x}', '\ud800'];
      const body = Object.fromEntries(keys.map((k, i) => [k, i]));
      const record = make(body);
      expect(Object.keys(record).sort()).to.deep.equal(['id', ...keys].sort());
      for (const [i, k] of keys.entries()) expect(record[k], k).to.equal(i);
    });

    it('throws the first error in key order: a bad value, or a forbidden field name', () => {
      const bad = { type: 'Integer', value: 'nope' };
      expect(() => make({ a: bad, constructor: 1 })).to.throw(InvalidInput, /Integer/);
      expect(() => make({ constructor: 1, a: bad })).to.throw(InvalidInput, /Forbidden field name 'constructor'/);
      expect(() => make({ a: 1, prototype: 2 })).to.throw(InvalidInput, /Forbidden field name 'prototype'/);
    });

    it('refuses a body holding __proto__ as its own key', () => {
      expect(recordShapeOf(JSON.parse('{"__proto__": 1}') as Record<string, unknown>)).to.equal(undefined);
    });

    it('makes records of many keys too', () => {
      const body = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i]));
      const record = make(body);
      expect(Object.keys(record)).to.have.length(81);
      expect(record.k79).to.equal(79);
    });
  });
});
