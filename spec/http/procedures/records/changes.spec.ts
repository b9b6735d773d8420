/**
 * The subscription stream procedure in process: its events, its filter,
 * and cancellation through the abort signal (what a transport does when
 * the client goes away or unsubscribes).
 */
import { expect } from 'chai';
import { ProcedureCaller } from '../../../helpers/procedure-caller.js';
import type { Principal } from '../../../../lib/http/procedures/context.js';
import type { StreamEvent } from '../../../../lib/http/procedures/procedure.js';

/** Reads events until `n` arrived, without ending the stream. */
async function take(it: AsyncIterator<StreamEvent>, n: number): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('procedures in process: changes.subscribe (a stream)', () => {
  let c: ProcedureCaller;
  let admin: Principal;
  beforeEach(async () => {
    c = await ProcedureCaller.open();
    admin = await c.principal();
  });
  afterEach(async () => {
    await c.close();
  });

  const open = (args: Record<string, unknown>, who = admin) =>
    c.dispatcher.openStream('changes.subscribe', { args, body: {} }, who);

  it('yields subscribed first, then one mutation per committed change', async () => {
    const s = await open({ collection: 'news' });
    const it = s.events[Symbol.asyncIterator]();
    await c.call('records.insert', admin, { collection: 'news' }, { id: 'n1', title: 'hello' });
    await c.call('records.delete', admin, { collection: 'news', id: 'n1' });
    const [first, ins, del] = await take(it, 3);
    expect(first!.event).to.equal('subscribed');
    expect(first!.data).to.include({ collection: 'news' });
    expect((first!.data as { subscription_id: string }).subscription_id).to.match(/^sub_[0-9a-f]{32}$/);
    expect(ins).to.deep.include({ event: 'mutation' });
    expect(ins!.data).to.include({ collection: 'news', event: 'insert' });
    expect(del!.data).to.include({ event: 'delete' });
    s.cancel();
  });

  it('filters by field value, given as text or as a number', async () => {
    const s = await open({ collection: 'orders', filter_field: 'n', filter_value: 2 });
    const it = s.events[Symbol.asyncIterator]();
    await c.call('records.insert', admin, { collection: 'orders' }, { n: 1 });
    await c.call('records.insert', admin, { collection: 'orders' }, { n: 2 });
    const [, mutation] = await take(it, 2);
    expect((mutation!.data as { records: { n: { value: number } } }).records.n.value).to.equal(2);
    s.cancel();
  });

  it('ends its events and releases the subscription when the signal fires', async () => {
    const s = await open({ collection: 'gone' });
    expect(c.services.changes.count()).to.equal(1);
    const it = s.events[Symbol.asyncIterator]();
    await take(it, 1);
    const pending = it.next();
    s.cancel();
    expect(s.signal.aborted).to.equal(true);
    expect(await pending).to.deep.equal({ value: undefined, done: true });
    expect(c.services.changes.count()).to.equal(0);
    await c.call('records.insert', admin, { collection: 'gone' }, { id: 'late' });
    expect(await it.next()).to.deep.equal({ value: undefined, done: true });
  });

  it('releases the subscription when the reader stops early (for await ... break)', async () => {
    const s = await open({ collection: 'brief' });
    for await (const e of s.events) {
      expect(e.event).to.equal('subscribed');
      break;
    }
    expect(c.services.changes.count()).to.equal(0);
  });

  it('checks the key before subscribing, and rechecks it when the key changes', async () => {
    const reader = await c.principal({ name: 'reader', collection_permissions: { a: { read: true } } });
    const s = await open({ collection: 'a' }, reader);
    let refused: unknown;
    try {
      await open({ collection: 'b' }, reader);
    } catch (err) {
      refused = err;
    }
    expect((refused as Error).message).to.match(/b/);
    expect(() => s.recheck(reader)).not.to.throw();
    const narrowed = await c.principal({ name: 'narrowed', collection_permissions: { other: { read: true } } });
    expect(() => s.recheck(narrowed)).to.throw(/a/);
    s.cancel();
  });
});
