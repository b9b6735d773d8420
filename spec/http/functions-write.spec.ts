import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

describe('HTTP stored functions: write steps and working-record edits', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await TestServer.start();
  });
  afterEach(async () => {
    await s.stop();
  });

  const save = (def: Record<string, unknown>) =>
    s.request('POST', '/api/functions', { name: String(def.label), parameters: {}, ...def });
  const saved = async (def: Record<string, unknown>) => {
    const r = await save(def);
    if (r.status !== 200) throw new Error(`save failed: ${r.status} ${r.text}`);
  };
  const call = (label: string, params: unknown = {}) =>
    s.request('POST', `/api/functions/${encodeURIComponent(label)}`, params);
  const stored = async (collection: string) => (await s.request('POST', `/api/find/${collection}`, {})).body as any[];
  const eq = (field: string, value: unknown) => ({ type: 'Condition', content: { field, operator: 'Eq', value } });

  it('refuses a bad filter or action at save with a 400 naming the path', async () => {
    const bad = await save({
      label: 'bad',
      functions: [
        {
          type: 'Delete',
          collection: 'c',
          filter: { type: 'Condition', content: { field: 'a', operator: 'Near', value: 1 } },
        },
      ],
    });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain('functions[0].filter: Unknown operator');
    const action = await save({
      label: 'bad2',
      functions: [{ type: 'UpdateWithAction', collection: 'c', record_id: 'a', action: 'explode', field: 'n' }],
    });
    expect(action.status).to.equal(400);
    expect(action.text).to.contain("functions[0].action: Unknown update action 'explode'");
  });

  it('batch-inserts, updates by a filter with placeholders and returns the updated records, typed', async () => {
    await saved({
      label: 'promote',
      parameters: { team: { required: true }, people: { required: true } },
      functions: [
        {
          type: 'BatchInsert',
          collection: 'staff',
          records: { type: 'Parameter', name: 'people' },
          bypass_ripple: false,
        },
        {
          type: 'Update',
          collection: 'staff',
          filter: eq('team', '{{team}}'),
          updates: { level: 2 },
          bypass_ripple: false,
        },
        { type: 'CurrentDatetime', field: 'checked_at' },
        { type: 'Increment', field: 'level', by: 1 },
      ],
    });
    const r = await call('promote', {
      team: 'red',
      people: [
        { name: 'Ann', team: 'red' },
        { name: 'Bob', team: 'blue' },
        { name: 'Cy', team: 'red' },
      ],
    });
    expect(r.status).to.equal(200);
    expect(r.body.records.map((x: any) => [x.name.value, x.level.value])).to.deep.equal([
      ['Ann', 3],
      ['Cy', 3],
    ]);
    expect(r.body.records[0].checked_at.type).to.equal('DateTime');
    expect(r.body.stats.stage_stats.map((x: any) => [x.stage, x.output_count])).to.deep.equal([
      ['BatchInsert', 3],
      ['Update', 2],
      ['CurrentDatetime', 2],
      ['Increment', 2],
    ]);
    expect((await stored('staff')).map((x: any) => x.level?.value ?? null)).to.deep.equal([2, null, 2]);
  });

  it('answers a missing record as the step failure body with status 404', async () => {
    await saved({
      label: 'rm',
      parameters: { id: { required: true } },
      functions: [{ type: 'DeleteById', collection: 'c', record_id: '{{id}}' }],
    });
    const r = await call('rm', { id: 'nope' });
    expect(r.status).to.equal(404);
    expect(r.body).to.include({ error: true, operation_index: 0, operation_type: 'DeleteById' });
  });

  it('runs a transactional function whose filtered writes see its staged inserts, and discards all on a failure', async () => {
    const steps = [
      { type: 'Insert', collection: 'orders', record: { id: '{{id}}', state: 'new' } },
      { type: 'Update', collection: 'orders', filter: eq('state', 'new'), updates: { state: 'paid' } },
      { type: 'FindOneAndUpdate', collection: 'orders', filter: eq('id', '{{id}}'), updates: { note: '{{note}}' } },
    ];
    const tx = { transaction_config: { enabled: true, auto_rollback: true } };
    await saved({
      label: 'pay',
      parameters: { id: { required: true }, note: { required: true } },
      functions: steps,
      ...tx,
    });
    const ok = await call('pay', { id: 'o1', note: 'thanks' });
    expect(ok.status).to.equal(200);
    expect(ok.body.records.map((x: any) => [x.state.value, x.note.value])).to.deep.equal([['paid', 'thanks']]);
    await saved({
      label: 'pay-fail',
      parameters: { id: { required: true }, note: { required: true } },
      functions: [...steps, { type: 'BatchDelete', ids: ['missing'] }],
      ...tx,
    });
    const failed = await call('pay-fail', { id: 'o2', note: 'x' });
    expect(failed.status).to.equal(404);
    expect(failed.body).to.include({ error: true, operation_index: 3, operation_type: 'BatchDelete' });
    expect((await stored('orders')).map((x: any) => x.id)).to.deep.equal(['o1']);
  });
});
