import { expect } from 'chai';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

describe('functions: FindAll and Insert', () => {
  let h: FunctionHarness;
  beforeEach(async () => { h = await FunctionHarness.open(); });
  afterEach(async () => { await h.close(); });

  it('FindAll makes every record of the collection the working records (none for a missing collection)', async () => {
    expect((await h.run([{ type: 'FindAll', collection: 'nothing_here' }])).records).to.deep.equal([]);
    await h.db.session(undefined).insert('items', { n: 1 });
    await h.db.session(undefined).insert('items', { n: 2 });
    const r = await h.run([{ type: 'FindAll', collection: '{{c}}' }], { c: 'items' });
    expect(r.records.map((x) => x.n).sort()).to.deep.equal([1, 2]);
  });

  it('Insert writes one record, with a ttl when given, and makes it the working record', async () => {
    const r = await h.run([{ type: 'Insert', collection: 'items', record: { n: '{{n}}' }, ttl: 3600 }], { n: 5 });
    expect(r.records).to.have.length(1);
    expect(r.records[0]).to.include({ n: 5 });
    expect(r.records[0]!.ttl).to.be.a('string');
    expect(h.records('items')).to.have.length(1);
  });

  it('Insert takes a whole record from a Parameter reference', async () => {
    h.define({ label: 'p', parameters: { doc: { required: true } }, functions: [{ type: 'Insert', collection: 'items', record: { type: 'Parameter', name: 'doc' } }] });
    expect((await h.call('p', { doc: { a: 1, b: [1, 2] } })).records[0]).to.deep.include({ a: 1, b: [1, 2] });
    const err = await rejection(h.call('p', { doc: 'not an object' }));
    expect(err).to.include({ type: 'Insert', message: "Insert 'record' must resolve to a JSON object" });
  });

  it('Insert needs collection and record, and a boolean bypass_ripple, at save', () => {
    expect(() => h.define({ label: 'a', functions: [{ type: 'Insert', record: {} }] })).to.throw("functions[0]: missing required member 'collection'");
    expect(() => h.define({ label: 'b', functions: [{ type: 'FindAll' }] })).to.throw("functions[0]: missing required member 'collection'");
  });
});
