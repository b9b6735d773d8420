import { expect } from 'chai';
import { bare, TestServer, errorBody } from '../helpers/test-server.js';

const addUser = {
  label: 'add_user',
  name: 'Add user',
  description: 'inserts one',
  version: '1.0.0',
  tags: ['users', 'write'],
  parameters: { name: { required: true, param_type: 'String' }, role: { required: false, default: 'member' } },
  functions: [{ type: 'Insert', collection: 'users', record: { name: '{{name}}', role: '{{role}}' } }],
};

/** A call's stats without the times, which differ from call to call. */
function untimed(stats: Record<string, any>): Record<string, any> {
  const { execution_time_ms: _total, stage_stats: stages, ...rest } = stats;
  return { ...rest, stage_stats: stages.map(({ execution_time_ms: _stage, ...stage }: Record<string, any>) => stage) };
}

describe('HTTP stored functions: definitions and calls', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await TestServer.start();
  });
  afterEach(async () => {
    await s.stop();
  });

  it('saves create-only, lists, gets by id or label, replaces and deletes', async () => {
    const created = await s.request('POST', '/api/functions', addUser);
    expect(created.status).to.equal(200);
    expect(created.body.status).to.equal('success');
    const id = created.body.id as string;

    const again = await s.request('POST', '/api/functions', addUser);
    expect(again.status).to.equal(409);
    expect(again.body.error).to.equal("A function with label 'add_user' already exists");

    const byLabel = await s.request('GET', '/api/functions/add_user');
    expect(byLabel.status).to.equal(200);
    expect(byLabel.body).to.deep.include({ ...addUser, id });
    expect(byLabel.body.created_at).to.match(/^\d{4}-\d\d-\d\dT/);
    expect((await s.request('GET', `/api/functions/${id}`)).body.label).to.equal('add_user');

    await s.request('POST', '/api/functions', { label: 'other', name: 'o', tags: ['misc'], functions: [] });
    const all = await s.request('GET', '/api/functions');
    expect(all.body.map((f: any) => f.label)).to.have.members(['add_user', 'other']);
    const tagged = await s.request('GET', '/api/functions?tags=write,none');
    expect(tagged.body.map((f: any) => f.label)).to.deep.equal(['add_user']);

    const replaced = await s.request('PUT', '/api/functions/add_user', { ...addUser, description: 'v2' });
    expect(replaced.status).to.equal(200);
    expect((await s.request('GET', `/api/functions/${id}`)).body.description).to.equal('v2');

    expect((await s.request('DELETE', '/api/functions/add_user')).status).to.equal(200);
    expect((await s.request('GET', '/api/functions/add_user')).status).to.equal(404);
    expect((await s.request('POST', '/api/functions/add_user', {})).status).to.equal(404);
  });

  it('answers a bad definition with a 400 naming the path', async () => {
    const r = await s.request('POST', '/api/functions', {
      ...addUser,
      functions: [{ type: 'FindAll', collection: 'u' }, { type: 'Qurey' }],
    });
    expect(r.status).to.equal(400);
    expect(r.body.error).to.equal("functions[1]: unknown step type 'Qurey'");
    expect(r.body.details).to.deep.equal({ path: 'functions[1]', message: "unknown step type 'Qurey'" });
  });

  it('keeps saving and replacing for admins, calling for any valid token', async () => {
    const user = await s.userToken();
    expect((await s.request('POST', '/api/functions', addUser, { token: user })).status).to.equal(403);
    await s.request('POST', '/api/functions', addUser);
    expect((await s.request('PUT', '/api/functions/add_user', addUser, { token: user })).status).to.equal(403);
    expect((await s.request('POST', '/api/functions/add_user', { name: 'Ann' }, { token: null })).status).to.equal(401);
    const call = await s.request('POST', '/api/functions/add_user', { name: 'Ann' }, { token: user });
    expect(call.status).to.equal(200);
    expect(bare(call.body.records[0])).to.include({ name: 'Ann', role: 'member' });
    expect(call.body.records[0].name).to.deep.equal({ type: 'String', value: 'Ann' });
    expect(call.body.stats).to.include({ input_count: 0, output_count: 1, stages_executed: 1 });
    expect(call.body.stats.stage_stats[0]).to.include({ stage: 'Insert', input_count: 0, output_count: 1 });
  });

  it('answers bare records, and a bare Return body, when use_typed_values is off', async () => {
    await s.request('POST', '/api/functions', addUser);
    await s.request('POST', '/api/functions', {
      label: 'when',
      name: 'w',
      functions: [
        { type: 'Insert', collection: 'w', record: { at: '2026-01-02T03:04:05Z' } },
        { type: 'Return', fields: { at: '{{at}}' } },
      ],
    });
    expect((await s.request('POST', '/api/functions/when', {})).body.at.type).to.equal('DateTime');
    await s.request('PUT', '/api/config', { use_typed_values: false });
    const call = await s.request('POST', '/api/functions/add_user', { name: 'Bo' });
    expect(call.body.records[0]).to.include({ name: 'Bo', role: 'member' });
    expect((await s.request('POST', '/api/functions/when', {})).body.at).to.be.a('string');
  });

  it('answers the same records and stats in JSON and MessagePack, typed and bare, one record or many', async () => {
    const ann = await s.request('POST', '/api/insert/people', { name: 'Ann', age: 31, tags: ['a', 'b'] });
    const bo = await s.request('POST', '/api/insert/people', { name: 'Bo "the" \\ one', age: 7.5, ok: null });
    const byId = { label: 'by_id', name: 'by id', parameters: { id: { required: true } } };
    await s.request('POST', '/api/functions', {
      ...byId,
      functions: [{ type: 'FindById', collection: 'people', record_id: '{{id}}' }],
    });
    await s.request('POST', '/api/functions', {
      label: 'all',
      name: 'all',
      functions: [{ type: 'FindAll', collection: 'people' }],
    });
    const calls: Array<[string, unknown]> = [
      ['/api/functions/by_id', { id: ann.body.id }], // a nested value: not written directly
      ['/api/functions/by_id', { id: bo.body.id }],
      ['/api/functions/by_id', { id: bo.body.id }], // the same stored record again: its remembered text
      ['/api/functions/by_id', { id: 'nope' }],
      ['/api/functions/all', {}],
    ];
    for (const typed of [true, false]) {
      await s.request('PUT', '/api/config', { use_typed_values: typed });
      for (const [path, params] of calls) {
        const json = await s.request('POST', path, params);
        const packed = await s.request('POST', path, params, { format: 'msgpack' });
        expect(json.status, json.text).to.equal(200);
        expect(Object.keys(json.body)).to.deep.equal(['records', 'stats']);
        expect(json.text).to.equal(JSON.stringify(json.body));
        expect(packed.body.records).to.deep.equal(json.body.records);
        // Compared as text: the same members in the same order.
        expect(JSON.stringify(untimed(packed.body.stats))).to.equal(JSON.stringify(untimed(json.body.stats)));
      }
      const one = await s.request('POST', '/api/functions/by_id', { id: bo.body.id });
      expect(one.body.records).to.deep.equal([(await s.request('GET', `/api/find/people/${bo.body.id}`)).body]);
      expect(one.body.stats).to.include({ output_count: 1, stages_executed: 1 });
    }
  });

  it('rejects missing required and unknown parameters with a 400', async () => {
    await s.request('POST', '/api/functions', addUser);
    const missing = await s.request('POST', '/api/functions/add_user', {});
    expect(missing.status).to.equal(400);
    expect(missing.body.error).to.equal("Missing required parameter 'name'");
    const unknown = await s.request('POST', '/api/functions/add_user', { name: 'x', nickname: 'y' });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error).to.equal("Unknown parameter 'nickname'");
  });

  it('answers a failing step with the step failure body', async () => {
    await s.request('POST', '/api/functions', {
      label: 'bad',
      name: 'b',
      functions: [
        { type: 'FindAll', collection: 'x' },
        { type: 'Insert', collection: '.bad', record: {} },
      ],
    });
    const r = await s.request('POST', '/api/functions/bad', {});
    expect(r.status).to.equal(400);
    expect(errorBody(r)).to.deep.equal({
      error: true,
      operation_index: 1,
      operation_type: 'Insert',
      message: 'Invalid collection name',
      details: null,
    });
  });

  it('keeps definitions through a restart', async () => {
    await s.request('POST', '/api/functions', addUser);
    const dataDir = s.dataDir;
    await s.server.close();
    const again = await TestServer.start({ dataDir });
    try {
      const r = await again.request('POST', '/api/functions/add_user', { name: 'Cy' });
      expect(r.status).to.equal(200);
      expect((await again.request('GET', '/api/functions/add_user')).body).to.deep.include(addUser);
    } finally {
      await again.stop();
    }
  });
});
