/**
 * Short lists of short strings are shared between records (sharedArray):
 * from a request body and from a log batch or snapshot alike, frozen, one
 * copy per list; anything else (longer, other items, outside a record in a
 * payload) is kept as it came.
 */
import { expect } from 'chai';
import { heapPerRecord } from '../../helpers/heap.js';
import { fieldsFromWire, isShareableArray, MAX_SHARED_ITEMS, sharedArray } from '../../../lib/engine/values/index.js';
import { encodePayload } from '../../../lib/engine/storage/codec.js';
import { unpackStored } from '../../../lib/engine/storage/unpack.js';

const TAGS = ['new', 'vip', 'beta', 'churn-risk', 'trial'];
/** A fresh list (fresh strings too) of one to three tags, one of a few dozen. */
const tags = (i: number) => Array.from({ length: 1 + (i % 3) }, (_, k) => `${TAGS[(i + k) % TAGS.length]}`.slice(0));

describe('engine/values/shared arrays', () => {
  it('tells which arrays it shares: up to eight strings of up to sixteen characters', () => {
    expect(isShareableArray([])).to.equal(true);
    expect(isShareableArray(['a', 'b'])).to.equal(true);
    expect(isShareableArray(Array.from({ length: MAX_SHARED_ITEMS + 1 }, () => 'a'))).to.equal(false);
    expect(isShareableArray(['x'.repeat(17)])).to.equal(false);
    expect(isShareableArray(['a', 1])).to.equal(false);
  });

  it('gives back one frozen copy for equal lists, and keeps lists of one slot apart', () => {
    const a = sharedArray(['vip', 'new']);
    expect(Object.isFrozen(a)).to.equal(true);
    expect(sharedArray(['vip', 'new'])).to.equal(a);
    expect(sharedArray(['new', 'vip'])).to.not.equal(a);
    expect(sharedArray(['new', 'vip'])).to.deep.equal(['new', 'vip']);
    // Many lists through 4,096 slots: each answer equals what was asked, shared or not.
    for (let i = 0; i < 20_000; i++) expect(sharedArray([`t${i}`, 'x'])).to.deep.equal([`t${i}`, 'x']);
  });

  it('shares the lists of records made from request bodies', () => {
    const first = fieldsFromWire({ tags: tags(4), long: ['x'.repeat(40)] });
    const second = fieldsFromWire({ tags: tags(4), long: ['x'.repeat(40)] });
    expect(second.tags).to.equal(first.tags);
    expect(second.long).to.not.equal(first.long);
    expect(Object.isFrozen(second.long)).to.equal(true);
    const n = 30_000;
    const shared = heapPerRecord(n, (i) => fieldsFromWire({ tags: tags(i) }));
    const own = heapPerRecord(n, (i) => fieldsFromWire({ tags: [...tags(i), `own-${i}`] }));
    // A list of its own is 56-80 bytes (and a string of 24 here).
    expect(own - shared).to.be.greaterThan(64);
  });

  it('shares the lists inside the records of a payload, not those around them', () => {
    const rows = (i: number) => [
      [`id-${i}`, { id: `id-${i}`, tags: tags(i) }],
      [`id-${i + 15}`, { id: `id-${i + 15}`, tags: tags(i + 15) }],
    ];
    const decoded = unpackStored(encodePayload({ k: 'recs', c: 'c', rows: rows(0), top: ['a', 'b'] })) as {
      rows: Array<[string, { tags: readonly string[] }]>;
      top: string[];
    };
    expect(decoded.rows[1]![1].tags).to.equal(decoded.rows[0]![1].tags);
    expect(Object.isFrozen(decoded.rows[0]![1].tags)).to.equal(true);
    expect(Object.isFrozen(decoded.top), 'a list outside any record').to.equal(false);
    expect(Object.isFrozen(decoded.rows[0]), 'a row').to.equal(false);
  });
});
