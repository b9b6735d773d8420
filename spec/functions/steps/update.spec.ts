import { expect } from 'chai';
import { StepFailed } from '../../../lib/errors.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

const eq = (field: string, value: unknown) => ({ type: 'Condition', content: { field, operator: 'Eq', value } });
const param = (name: string) => ({ type: 'Parameter', name });

describe('functions: update steps', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
  });
  afterEach(async () => {
    await h.close();
  });

  const seed = (c: string, records: Record<string, unknown>[]) => h.db.session(undefined).insertAll(c, records);
  const saveFails = (steps: unknown[], message: string, parameters: Record<string, unknown> = {}) =>
    expect(() => h.define({ label: `bad_${Math.random()}`, parameters, functions: steps })).to.throw(message);
  const stepFails = async (p: Promise<unknown>, index: number, type: string, pattern: RegExp, status = 400) => {
    const err = await rejection(p);
    expect(err).to.be.instanceOf(StepFailed);
    expect(err).to.include({ index, type, status });
    expect(err.message).to.match(pattern);
  };

  describe('Update', () => {
    it('merges updates into every match and returns the updated records', async () => {
      await seed('tasks', [
        { id: 'a', owner: 'ann', done: false },
        { id: 'b', owner: 'bob', done: false },
        { id: 'c', owner: 'ann', done: false },
      ]);
      const result = await h.run(
        [
          {
            type: 'Update',
            collection: 'tasks',
            filter: eq('owner', '{{who}}'),
            updates: { done: true, by: '{{who}}' },
          },
        ],
        { who: 'ann' },
      );
      expect(result.records.map((r) => [r.id, r.done, r.by])).to.deep.equal([
        ['a', true, 'ann'],
        ['c', true, 'ann'],
      ]);
      expect(h.records('tasks').filter((r) => r.done === true)).to.have.length(2);
    });

    it('takes updates from a Parameter reference, sets the ttl, and returns nothing when nothing matched', async () => {
      await seed('t', [{ id: 'a', k: 1 }]);
      const result = await h.run(
        [{ type: 'Update', collection: 't', filter: eq('k', 1), updates: param('u'), ttl: '1h' }],
        { u: { note: 'x' } },
      );
      expect(result.records[0]).to.include({ note: 'x' });
      expect(result.records[0]!.ttl).to.be.a('string');
      expect(
        (await h.run([{ type: 'Update', collection: 't', filter: eq('k', 2), updates: { z: 1 } }])).records,
      ).to.deep.equal([]);
    });

    it('changes nothing when one match violates the schema', async () => {
      await h.db.collections.create('s', { fields: { n: { field_type: 'Integer', max: 5 } } });
      await seed('s', [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ]);
      await stepFails(
        h.run([
          { type: 'Update', collection: 's', filter: { field: 'n', operator: 'Gte', value: 0 }, updates: { n: 9 } },
        ]),
        0,
        'Update',
        /n/,
      );
      expect(h.records('s').map((r) => r.n)).to.deep.equal([1, 2]);
    });

    it('parses a filter without placeholders at save and one with them at the call', async () => {
      saveFails(
        [
          {
            type: 'Update',
            collection: 't',
            filter: { type: 'Condition', content: { field: 'a', operator: 'Like', value: 1 } },
            updates: {},
          },
        ],
        'functions[0].filter: ',
      );
      saveFails(
        [{ type: 'Update', collection: 't', filter: eq('__proto__', 1), updates: {} }],
        'functions[0].filter: ',
      );
      saveFails([{ type: 'Update', collection: 't', updates: {} }], "functions[0]: missing required member 'filter'");
      saveFails(
        [{ type: 'Update', collection: 't', filter: eq('a', 1) }],
        "functions[0]: missing required member 'updates'",
      );
      saveFails(
        [{ type: 'Update', collection: 't', filter: eq('a', '{{__proto__}}'), updates: {} }],
        'functions[0].filter.content.value',
      );
      await stepFails(
        h.run(
          [
            {
              type: 'Update',
              collection: 't',
              filter: { type: 'Condition', content: { field: 'a', operator: '{{op}}', value: 1 } },
              updates: {},
            },
          ],
          { op: 'Like' },
        ),
        0,
        'Update',
        /filter/,
      );
      await stepFails(
        h.run([{ type: 'Update', collection: 't', filter: eq('a', 1), updates: param('u') }], { u: [1] }),
        0,
        'Update',
        /'updates' must resolve to a JSON object/,
      );
    });
  });

  describe('UpdateById', () => {
    it('merges into one record by id and fails with 404 for a missing one', async () => {
      await seed('u', [{ id: 'a', n: 1 }]);
      const result = await h.run([{ type: 'UpdateById', collection: 'u', record_id: '{{id}}', updates: { m: 2 } }], {
        id: 'a',
      });
      expect(result.records).to.deep.equal([{ id: 'a', n: 1, m: 2 }]);
      await stepFails(
        h.run([{ type: 'UpdateById', collection: 'u', record_id: 'zz', updates: { m: 2 } }]),
        0,
        'UpdateById',
        /Record not found/,
        404,
      );
      saveFails(
        [{ type: 'UpdateById', collection: 'u', updates: {} }],
        "functions[0]: missing required member 'record_id'",
      );
    });
  });

  describe('FindOneAndUpdate', () => {
    it("updates by record_id, or the first match of the Rust client's filter, and returns it", async () => {
      await seed('q', [
        { id: 'a', state: 'new' },
        { id: 'b', state: 'new' },
      ]);
      const byId = await h.run([
        { type: 'FindOneAndUpdate', collection: 'q', record_id: 'b', updates: { state: 'taken' } },
      ]);
      expect(byId.records).to.deep.equal([{ id: 'b', state: 'taken' }]);
      const byFilter = await h.run([
        { type: 'FindOneAndUpdate', collection: 'q', filter: eq('state', 'new'), updates: { state: 'taken' } },
      ]);
      expect(byFilter.records).to.deep.equal([{ id: 'a', state: 'taken' }]);
      expect(h.records('q').map((r) => r.state)).to.deep.equal(['taken', 'taken']);
    });

    it('returns no record when none is found', async () => {
      expect(
        (await h.run([{ type: 'FindOneAndUpdate', collection: 'q', record_id: 'zz', updates: { a: 1 } }])).records,
      ).to.deep.equal([]);
      expect(
        (await h.run([{ type: 'FindOneAndUpdate', collection: 'q', filter: eq('a', 1), updates: { a: 1 } }])).records,
      ).to.deep.equal([]);
      expect(h.records('q')).to.deep.equal([]);
    });

    it('wants exactly one of record_id and filter', () => {
      saveFails(
        [{ type: 'FindOneAndUpdate', collection: 'q', record_id: 'a', filter: eq('a', 1), updates: {} }],
        "functions[0]: give either 'record_id' or 'filter', not both",
      );
      saveFails(
        [{ type: 'FindOneAndUpdate', collection: 'q', updates: {} }],
        "functions[0]: missing required member 'record_id'",
      );
    });
  });

  describe('UpdateWithAction', () => {
    it('applies one action by record_id (TypeScript and Go)', async () => {
      await seed('v', [{ id: 'a', visits: 1, tags: ['x'] }]);
      const result = await h.run(
        [
          {
            type: 'UpdateWithAction',
            collection: 'v',
            record_id: 'a',
            action: 'increment',
            field: 'visits',
            value: '{{by}}',
          },
        ],
        { by: 4 },
      );
      expect(result.records[0]).to.include({ visits: 5 });
      const pushed = await h.run([
        { type: 'UpdateWithAction', collection: 'v', record_id: 'a', action: 'Push', field: 'tags', value: 'y' },
      ]);
      expect(pushed.records[0]!.tags).to.deep.equal(['x', 'y']);
      const cleared = await h.run([
        { type: 'UpdateWithAction', collection: 'v', record_id: 'a', action: 'clear', field: 'tags' },
      ]);
      expect(cleared.records[0]!.tags).to.deep.equal([]);
    });

    it('applies a list of actions to every filter match (Rust)', async () => {
      await seed('v', [
        { id: 'a', g: 1, n: 1, l: [] },
        { id: 'b', g: 2, n: 1, l: [] },
        { id: 'c', g: 1, n: 5, l: [] },
      ]);
      const result = await h.run(
        [
          {
            type: 'UpdateWithAction',
            collection: 'v',
            filter: eq('g', 1),
            bypass_ripple: false,
            actions: [['increment', 'n', 10], { action: 'push', field: 'l', value: '{{tag}}' }, ['Multiply', 'n', 2]],
          },
        ],
        { tag: 'hot' },
      );
      expect(result.records.map((r) => [r.id, r.n, r.l])).to.deep.equal([
        ['a', 22, ['hot']],
        ['c', 30, ['hot']],
      ]);
      expect(h.records('v').find((r) => r.id === 'b')).to.include({ n: 1 });
    });

    it('fails the step, changing nothing, when an action cannot apply to one match', async () => {
      await seed('v', [
        { id: 'a', n: 1 },
        { id: 'b', n: 'text' },
      ]);
      await stepFails(
        h.run([
          {
            type: 'UpdateWithAction',
            collection: 'v',
            filter: { field: 'id', operator: 'In', value: ['a', 'b'] },
            actions: [['increment', 'n', 1]],
          },
        ]),
        0,
        'UpdateWithAction',
        /Failed to apply action 'increment': field not numeric/,
      );
      expect(h.records('v').map((r) => r.n)).to.deep.equal([1, 'text']);
    });

    it('checks action names and fields at save, naming the member', () => {
      saveFails(
        [{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', action: 'explode', field: 'n' }],
        "functions[0].action: Unknown update action 'explode'",
      );
      saveFails(
        [{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', action: 'increment', field: 'id' }],
        "functions[0].field: Failed to apply action 'increment': field 'id' cannot be modified",
      );
      saveFails(
        [{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', action: 'push', field: '__proto__' }],
        "functions[0].field: Forbidden field name '__proto__'",
      );
      saveFails(
        [{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', action: 'increment' }],
        "functions[0]: missing required member 'field'",
      );
      saveFails(
        [
          {
            type: 'UpdateWithAction',
            collection: 'v',
            filter: eq('a', 1),
            actions: [
              ['increment', 'n', 1],
              ['nope', 'n'],
            ],
          },
        ],
        "functions[0].actions: Unknown update action 'nope'",
      );
      saveFails(
        [{ type: 'UpdateWithAction', collection: 'v', filter: eq('a', 1), actions: [['push', '__proto__', 1]] }],
        'functions[0].actions: ',
      );
      saveFails(
        [{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', action: 'push', field: 'l', actions: [] }],
        "functions[0]: give either 'action' or 'actions', not both",
      );
      saveFails(
        [{ type: 'UpdateWithAction', collection: 'v', record_id: 'a' }],
        "functions[0]: missing required member 'action'",
      );
    });

    it('checks actions from a Parameter reference at the call', async () => {
      await seed('v', [{ id: 'a', n: 1 }]);
      const ok = await h.run([{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', actions: param('acts') }], {
        acts: [['Decrement', 'n', 1]],
      });
      expect(ok.records[0]).to.include({ n: 0 });
      await stepFails(
        h.run([{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', actions: param('acts') }], {
          acts: [['boom', 'n']],
        }),
        0,
        'UpdateWithAction',
        /Unknown update action 'boom'/,
      );
      const mixed = await h.run(
        [{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', actions: [['increment', 'n', 5], param('one')] }],
        { one: ['multiply', 'n', 2] },
      );
      expect(mixed.records[0]).to.include({ n: 10 });
      saveFails(
        [{ type: 'UpdateWithAction', collection: 'v', record_id: 'a', actions: 'x' }],
        'functions[0].actions: must be a list of actions',
      );
    });
  });
});
