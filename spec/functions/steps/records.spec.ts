import { expect } from 'chai';
import { ManualClock, Database, Tagged } from '../../../lib/engine/index.js';
import { StepFailed } from '../../../lib/errors.js';
import { callStoredFunction, compileDefinition } from '../../../lib/functions/index.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

describe('functions: working-record edits', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
  });
  afterEach(async () => {
    await h.close();
  });

  const seed = (records: Record<string, unknown>[]) => h.db.session(undefined).insertAll('items', records);
  const saveFails = (steps: unknown[], message: string) =>
    expect(() => h.define({ label: `bad_${Math.random()}`, functions: steps })).to.throw(message);
  const findAll = { type: 'FindAll', collection: 'items' };

  it('never write to the stored records', async () => {
    await seed([{ id: 'a', n: 1, l: [] }]);
    const result = await h.run([
      findAll,
      { type: 'SetField', field: 'x', value: 1 },
      { type: 'Increment', field: 'n' },
      { type: 'Push', field: 'l', value: 2 },
      { type: 'CurrentDatetime', field: 'at' },
    ]);
    expect(result.records[0]).to.include({ x: 1, n: 2 });
    expect(h.records('items')).to.deep.equal([{ id: 'a', n: 1, l: [] }]);
  });

  describe('SetField', () => {
    it('sets the field on each record from a template resolved against that record', async () => {
      await seed([
        { id: 'a', price: 2 },
        { id: 'b', price: 5 },
      ]);
      const result = await h.run(
        [
          findAll,
          { type: 'SetField', field: 'label', value: '{{id}} costs {{price}} {{currency}}' },
          { type: 'SetField', field: 'copy', value: '{{price}}' },
        ],
        { currency: 'EUR' },
      );
      expect(result.records.map((r) => [r.label, r.copy])).to.deep.equal([
        ['a costs 2 EUR', 2],
        ['b costs 5 EUR', 5],
      ]);
    });

    it('builds one record from nothing, keeps typed values and sets null', async () => {
      const result = await h.run(
        [
          { type: 'SetField', field: 'when', value: { type: 'Parameter', name: 'when' } },
          { type: 'SetField', field: 'gone', value: null },
        ],
        { when: { type: 'DateTime', value: '2021-05-06T07:08:09Z' } },
      );
      expect(result.records).to.have.length(1);
      expect(result.records[0]!.when).to.be.instanceOf(Tagged);
      expect(result.records[0]!.gone).to.equal(null);
    });

    it('names bad members at save', () => {
      saveFails([{ type: 'SetField', value: 1 }], "functions[0]: missing required member 'field'");
      saveFails([{ type: 'SetField', field: 'x' }], "functions[0]: missing required member 'value'");
      saveFails(
        [{ type: 'SetField', field: '__proto__', value: 1 }],
        "functions[0].field: forbidden field name '__proto__'",
      );
      saveFails(
        [{ type: 'SetField', field: 'constructor', value: 1 }],
        "functions[0].field: forbidden field name 'constructor'",
      );
      saveFails([{ type: 'SetField', field: 7, value: 1 }], 'functions[0].field: must be a field name');
      saveFails(
        [{ type: 'SetField', field: 'x', value: '{{prototype}}' }],
        "functions[0].value: placeholder '{{prototype}}' names the forbidden member 'prototype'",
      );
    });
  });

  describe('Increment', () => {
    it('adds by (or amount), default 1, keeping the numeric type', async () => {
      await seed([
        { id: 'a', n: 1, d: { type: 'Decimal', value: '1.50' } },
        { id: 'b', n: 10 },
      ]);
      const result = await h.run(
        [
          findAll,
          { type: 'Increment', field: 'n' },
          { type: 'Increment', field: 'n', by: '{{step}}' },
          { type: 'Increment', field: 'd', amount: { type: 'Decimal', value: '0.25' } },
          { type: 'Increment', field: 'fresh', by: 2 },
        ],
        { step: 3 },
      );
      expect(result.records.map((r) => [r.n, r.fresh])).to.deep.equal([
        [5, 2],
        [14, 2],
      ]);
      expect((result.records[0]!.d as Tagged).value).to.equal('1.75');
    });

    it('fails the step for a field that is not numeric', async () => {
      const err = await rejection(
        h.run([
          { type: 'SetField', field: 's', value: 'text' },
          { type: 'Increment', field: 's' },
        ]),
      );
      expect(err).to.be.instanceOf(StepFailed);
      expect(err).to.include({ index: 1, type: 'Increment', status: 400 });
      expect(err.message).to.match(/field not numeric/);
    });

    it('names bad members at save', () => {
      saveFails([{ type: 'Increment' }], "functions[0]: missing required member 'field'");
      saveFails([{ type: 'Increment', field: 'a.__proto__' }], "functions[0].field: forbidden field name '__proto__'");
      saveFails(
        [{ type: 'Increment', field: 'n', by: { type: 'Parameter', name: 'nope' } }],
        "functions[0].by: unknown parameter 'nope'",
      );
    });
  });

  describe('Push', () => {
    it("appends to each record's array, creating it when missing", async () => {
      await seed([{ id: 'a', tags: ['x'] }, { id: 'b' }]);
      const result = await h.run([findAll, { type: 'Push', field: 'tags', value: '{{id}}-tag' }]);
      expect(result.records.map((r) => r.tags)).to.deep.equal([['x', 'a-tag'], ['b-tag']]);
    });

    it('fails the step for a field that is not an array, and names bad members at save', async () => {
      const err = await rejection(
        h.run([
          { type: 'SetField', field: 's', value: 1 },
          { type: 'Push', field: 's', value: 2 },
        ]),
      );
      expect(err).to.include({ index: 1, type: 'Push', status: 400 });
      saveFails([{ type: 'Push', field: 'l' }], "functions[0]: missing required member 'value'");
      saveFails([{ type: 'Push', value: 1 }], "functions[0]: missing required member 'field'");
    });
  });

  describe('CurrentDatetime', () => {
    let dir: string | undefined;
    let db: Database | undefined;
    afterEach(async () => {
      await db?.close();
      if (dir) removeDir(dir);
      db = dir = undefined;
    });

    it('sets field or output_field to the engine clock as a DateTime, the same on every record', async () => {
      dir = tempDir();
      db = await Database.open({ dataDir: dir, clock: new ManualClock(Date.parse('2030-01-02T03:04:05.678Z')) });
      const fn = compileDefinition({
        label: 'now',
        name: 'now',
        parameters: {},
        functions: [
          { type: 'Insert', collection: 'c', record: { a: 1 } },
          { type: 'Insert', collection: 'c', record: { a: 2 } },
          { type: 'FindAll', collection: 'c' },
          { type: 'CurrentDatetime', field: 'seen_at' },
          { type: 'CurrentDatetime', output_field: 'also' },
        ],
      });
      const result = await callStoredFunction({ engine: db!, lookup: () => undefined }, fn, {});
      for (const r of result.records) {
        expect(r.seen_at).to.be.instanceOf(Tagged);
        expect(r.seen_at).to.deep.equal(r.also);
        expect(r.seen_at).to.deep.include({ type: 'DateTime' });
        expect(String((r.seen_at as Tagged).value)).to.match(/^2030-01-02T03:04:05\.678/);
      }
    });

    it('builds one record from nothing and names bad members at save', async () => {
      const result = await h.run([{ type: 'CurrentDatetime', field: 'at' }]);
      expect(result.records).to.have.length(1);
      saveFails([{ type: 'CurrentDatetime' }], "functions[0]: missing required member 'field'");
      saveFails(
        [{ type: 'CurrentDatetime', output_field: 'prototype' }],
        "functions[0].output_field: forbidden field name 'prototype'",
      );
    });
  });
});
