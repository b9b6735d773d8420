import { expect } from 'chai';
import { Tagged } from '../../../lib/engine/index.js';
import { StepFailed } from '../../../lib/errors.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

const ALL = { type: 'FindAll', collection: 'sales' };
const byN = { type: 'Sort', sort: [{ field: 'n', ascending: true }] };

describe('functions: shaping steps', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
    const s = h.db.session(undefined);
    const rows = [
      { id: 's1', n: 1, region: 'north', amount: 10, meta: { tag: 'a', note: 'x' } },
      { id: 's2', n: 2, region: 'south', amount: 5, meta: { tag: 'b', note: 'y' } },
      { id: 's3', n: 3, region: 'north', amount: 7, meta: { tag: 'a', note: 'z' } },
      { id: 's4', n: 4, amount: 1 },
    ];
    for (const r of rows) await s.insert('sales', r);
  });
  afterEach(async () => {
    await h.close();
  });

  const ids = (records: Array<Record<string, unknown>>) => records.map((r) => r.id);
  const saveError = (steps: unknown[]) => {
    try {
      h.define({ label: `bad_${Math.random()}`, functions: steps });
    } catch (err) {
      expect((err as { status?: number }).status).to.equal(400);
      return (err as Error).message;
    }
    throw new Error('expected a save-time error');
  };

  describe('Project', () => {
    it('keeps the listed fields (and id), or drops them with exclude', async () => {
      const kept = await h.run([ALL, byN, { type: 'Project', fields: ['amount', 'meta.tag'], exclude: false }]);
      expect(kept.records[0]).to.deep.equal({ id: 's1', amount: 10, meta: { tag: 'a', note: 'x' } });
      const dropped = await h.run([ALL, byN, { type: 'Project', fields: ['amount', 'meta.note'], exclude: true }]);
      expect(dropped.records[0]).to.deep.equal({ id: 's1', n: 1, region: 'north', meta: { tag: 'a' } });
      const defaultKeep = await h.run([ALL, byN, { type: 'Project', fields: ['n'] }]);
      expect(defaultKeep.records.map((r) => Object.keys(r).sort())).to.deep.equal([
        ['id', 'n'],
        ['id', 'n'],
        ['id', 'n'],
        ['id', 'n'],
      ]);
    });

    it('refuses bad members at save', () => {
      expect(saveError([{ type: 'Project' }])).to.equal("functions[0]: missing required member 'fields'");
      expect(saveError([{ type: 'Project', fields: 'a', exclude: 'yes' }])).to.equal(
        'functions[0].exclude: must be a boolean',
      );
      expect(saveError([{ type: 'Project', fields: [1] }])).to.match(/^functions\[0\]\.fields: /);
      expect(saveError([{ type: 'Project', fields: ['__proto__'] }])).to.match(/^functions\[0\]\.fields: /);
    });
  });

  describe('Count', () => {
    it('makes one record with the count, under output_field or "count"', async () => {
      expect((await h.run([ALL, { type: 'Count' }])).records).to.deep.equal([{ count: 4 }]);
      expect((await h.run([ALL, { type: 'Count', output_field: 'total' }])).records).to.deep.equal([{ total: 4 }]);
      expect((await h.run([{ type: 'Count' }])).records).to.deep.equal([{ count: 0 }]);
    });

    it('refuses a hostile or non-text output_field at save', () => {
      expect(saveError([{ type: 'Count', output_field: '__proto__' }])).to.match(/^functions\[0\]\.output_field: /);
      expect(saveError([{ type: 'Count', output_field: 3 }])).to.equal('functions[0].output_field: must be a string');
    });
  });

  describe('Filter', () => {
    it('keeps the working records matching the filter, with the engine matcher (missing fields, dotted paths)', async () => {
      const r = await h.run([
        ALL,
        { type: 'Filter', filter: { type: 'Condition', content: { field: 'meta.tag', operator: 'Eq', value: 'a' } } },
      ]);
      expect(ids(r.records)).to.deep.equal(['s1', 's3']);
      const ne = await h.run([ALL, { type: 'Filter', filter: { field: 'region', operator: 'Ne', value: 'north' } }]);
      expect(ids(ne.records)).to.deep.equal(['s2', 's4']);
    });

    it('resolves placeholders once per call', async () => {
      const r = await h.run(
        [
          ALL,
          {
            type: 'Filter',
            filter: {
              and: [
                { field: 'amount', operator: 'Gte', value: '{{min}}' },
                { field: 'region', operator: 'In', value: { type: 'Parameter', name: 'regions' } },
              ],
            },
          },
        ],
        { min: 6, regions: ['north', 'east'] },
      );
      expect(ids(r.records)).to.deep.equal(['s1', 's3']);
    });

    it('refuses a missing or bad filter at save, and a bad resolved operand at call time', async () => {
      expect(saveError([{ type: 'Filter' }])).to.equal("functions[0]: missing required member 'filter'");
      expect(saveError([{ type: 'Filter', filter: { field: 'a', operator: 'Regex', value: '.*' } }])).to.match(
        /^functions\[0\]\.filter: .*Regex/,
      );
      expect(saveError([{ type: 'Filter', filter: { field: 'a', operator: 'Contains', value: 3 } }])).to.match(
        /^functions\[0\]\.filter: /,
      );
      const err = await rejection(
        h.run([ALL, { type: 'Filter', filter: { field: 'a', operator: 'Contains', value: '{{v}}' } }], { v: 3 }),
      );
      expect(err).to.be.instanceOf(StepFailed);
      expect(err).to.include({ status: 400, index: 1, type: 'Filter' });
    });
  });

  describe('Sort, Limit, Skip', () => {
    it('orders by several keys, missing values first when ascending', async () => {
      const r = await h.run([
        ALL,
        {
          type: 'Sort',
          sort: [
            { field: 'region', ascending: true },
            { field: 'amount', ascending: false },
          ],
        },
      ]);
      expect(ids(r.records)).to.deep.equal(['s4', 's1', 's3', 's2']);
    });

    it('limits and skips by literals and "{{param}}" strings', async () => {
      expect(
        ids((await h.run([ALL, byN, { type: 'Skip', skip: 1 }, { type: 'Limit', limit: 2 }])).records),
      ).to.deep.equal(['s2', 's3']);
      const p = await h.run([ALL, byN, { type: 'Skip', skip: '{{from}}' }, { type: 'Limit', limit: '{{size}}' }], {
        from: 2,
        size: 5,
      });
      expect(ids(p.records)).to.deep.equal(['s3', 's4']);
      expect((await h.run([ALL, { type: 'Limit', limit: 0 }])).records).to.deep.equal([]);
    });

    it('refuses bad members at save and bad resolved counts at call time', async () => {
      expect(saveError([{ type: 'Sort' }])).to.equal("functions[0]: missing required member 'sort'");
      expect(saveError([{ type: 'Sort', sort: [{ field: 'a', ascending: 1 }] }])).to.match(/^functions\[0\]\.sort: /);
      expect(saveError([{ type: 'Sort', sort: [{ field: 'constructor' }] }])).to.match(/^functions\[0\]\.sort: /);
      expect(saveError([{ type: 'Limit' }])).to.equal("functions[0]: missing required member 'limit'");
      expect(saveError([{ type: 'Limit', limit: 1.5 }])).to.match(
        /^functions\[0\]\.limit: expected a non-negative integer, got 1.5/,
      );
      expect(saveError([{ type: 'Skip', skip: -2 }])).to.match(/^functions\[0\]\.skip: /);
      expect(saveError([{ type: 'Skip', skip: '{{__proto__}}' }])).to.match(/^functions\[0\]\.skip: .*__proto__/);
      const err = await rejection(h.run([ALL, { type: 'Limit', limit: '{{size}}' }], { size: -1 }));
      expect(err).to.include({ status: 400, index: 1, type: 'Limit' });
    });
  });

  describe('AddFields', () => {
    it('adds per-record values: record fields and parameters, typed wrappers kept, existing fields replaced', async () => {
      const r = await h.run(
        [
          ALL,
          byN,
          { type: 'Limit', limit: 2 },
          {
            type: 'AddFields',
            fields: {
              label: '{{region}}-{{n}} by {{user}}',
              doubled: '{{amount}}',
              who: { type: 'Parameter', name: 'user' },
              when: { type: 'DateTime', value: '2026-01-02T03:04:05Z' },
              amount: 0,
            },
          },
        ],
        { user: 'ann' },
      );
      expect(r.records[0]).to.include({ id: 's1', label: 'north-1 by ann', doubled: 10, who: 'ann', amount: 0 });
      expect(r.records[0]!.when).to.be.instanceOf(Tagged);
      expect(r.records[1]).to.include({ label: 'south-2 by ann', doubled: 5 });
    });

    it('refuses a missing or empty fields object, id, and hostile names at save', () => {
      expect(saveError([{ type: 'AddFields' }])).to.equal(
        'functions[0].fields: must be a non-empty object of field name -> value',
      );
      expect(saveError([{ type: 'AddFields', fields: {} }])).to.match(/^functions\[0\]\.fields: /);
      expect(saveError([{ type: 'AddFields', fields: { id: 'x' } }])).to.match(/^functions\[0\]\.fields\.id: /);
      expect(saveError([{ type: 'AddFields', fields: JSON.parse('{"__proto__": 1}') }])).to.match(
        /^functions\[0\].*__proto__/,
      );
      expect(saveError([{ type: 'AddFields', fields: { a: { type: 'DateTime', value: 'not a date' } } }])).to.match(
        /^functions\[0\]\.fields: /,
      );
    });

    it('fails the call when a placeholder has no value', async () => {
      const err = await rejection(h.run([ALL, { type: 'AddFields', fields: { a: '{{nothing}}' } }]));
      expect(err).to.include({ status: 400, index: 1, type: 'AddFields' });
    });
  });

  describe('Group', () => {
    it('groups by fields with operations, missing by-fields under "null"', async () => {
      const r = await h.run([
        ALL,
        {
          type: 'Group',
          by_fields: ['region'],
          functions: [
            { output_field: 'total', operation: 'Sum', input_field: 'amount' },
            { output_field: 'count', operation: 'Count' },
            { output_field: 'avg', operation: 'Average', input_field: 'amount' },
            { output_field: 'tags', operation: 'AddToSet', input_field: 'meta.tag' },
          ],
        },
      ]);
      // Average is a Float even when whole (a Tagged Float inside the pipeline).
      const float = (v: unknown) => (v instanceof Tagged ? v.value : v);
      expect(r.records.map((g) => [g.region, g.total, g.count, float(g.avg)])).to.deep.equal([
        ['north', 17, 2, 8.5],
        ['south', 5, 1, 5],
        ['null', 1, 1, 1],
      ]);
      expect(r.records[0]!.tags).to.deep.equal(['a']);
    });

    it('counts over everything without by_fields, and feeds later steps', async () => {
      const r = await h.run([
        ALL,
        { type: 'Group', by_fields: [], functions: [{ output_field: 'max', operation: 'Max', input_field: 'amount' }] },
      ]);
      expect(r.records).to.deep.equal([{ max: 10 }]);
      const chained = await h.run([
        ALL,
        {
          type: 'Group',
          by_fields: ['region'],
          functions: [{ output_field: 'total', operation: 'Sum', input_field: 'amount' }],
        },
        { type: 'Sort', sort: [{ field: 'total', ascending: false }] },
        { type: 'Limit', limit: 1 },
      ]);
      expect(chained.records).to.deep.equal([{ region: 'north', total: 17 }]);
    });

    it('refuses bad members at save, naming the path', () => {
      expect(saveError([{ type: 'Group', by_fields: ['a'] }])).to.match(/^functions\[0\]\.functions: /);
      expect(saveError([{ type: 'Group', by_fields: 'a', functions: [] }])).to.match(/^functions\[0\]\.by_fields: /);
      expect(
        saveError([
          { type: 'Group', by_fields: ['a'], functions: [{ output_field: 'x', operation: 'Avg', input_field: 'b' }] },
        ]),
      ).to.match(/^functions\[0\]\.functions\[0\]\.operation: unknown Group operation 'Avg'/);
      expect(
        saveError([
          { type: 'FindAll', collection: 'c' },
          { type: 'Group', by_fields: ['a'], functions: [{ output_field: 'x', operation: 'Sum' }] },
        ]),
      ).to.match(/^functions\[1\]\.functions\[0\]: Sum needs an input_field/);
      expect(
        saveError([
          { type: 'Group', by_fields: ['a'], functions: [{ output_field: '__proto__', operation: 'Count' }] },
        ]),
      ).to.match(/^functions\[0\]/);
    });
  });
});
