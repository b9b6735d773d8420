import { expect } from 'chai';
import { fieldsFromWire, Tagged, type Fields, type Value } from '../../lib/engine/index.js';
import { InvalidInput } from '../../lib/errors.js';
import {
  compileGroup,
  GROUP_OPERATION_TABLE,
  GROUP_OPERATIONS,
  groupRows,
  MAX_GROUP_BY_FIELDS,
  MAX_GROUP_FUNCTIONS,
} from '../../lib/functions/index.js';

const rec = (body: Record<string, unknown>): Fields => fieldsFromWire(body);
const rows = (...bodies: Record<string, unknown>[]): Fields[] => bodies.map(rec);

function group(data: readonly Fields[], byFields: string[], functions: unknown[]): Fields[] {
  const spec = compileGroup({ by_fields: byFields, functions }, 'g');
  return groupRows(data, spec.by_fields, spec.functions);
}

/** One operation over one group of all records. */
function aggregate(operation: string, values: unknown[], field = 'v'): Value {
  const data = values.map((v) => rec(v === undefined ? {} : { [field]: v }));
  const [out] = group(data, [], [{ output_field: 'out', operation, input_field: field }]);
  return out!.out!;
}

function saveError(raw: unknown, path = 'functions[2]'): string {
  try {
    compileGroup(raw, path);
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidInput);
    return (err as Error).message;
  }
  throw new Error('expected compileGroup to throw');
}

const float = (n: number) => new Tagged('Float', n);

describe('functions/group', () => {
  it('has one module per operation, each filed under its own name', () => {
    expect(Object.keys(GROUP_OPERATION_TABLE).sort()).to.deep.equal([...GROUP_OPERATIONS].sort());
    for (const [name, op] of Object.entries(GROUP_OPERATION_TABLE)) expect(op.name).to.equal(name);
  });

  describe('groupRows', () => {
    const sales = rows(
      { region: 'north', product: 'a', amount: 10 },
      { region: 'south', product: 'a', amount: 5 },
      { region: 'north', product: 'b', amount: 7 },
      { product: 'c', amount: 1 },
      { region: null, product: 'c', amount: 2 },
    );

    it('makes one record per group with the by-fields and the outputs, groups in order of first appearance', () => {
      expect(
        group(
          sales,
          ['region'],
          [
            { output_field: 'n', operation: 'Count' },
            { output_field: 'total', operation: 'Sum', input_field: 'amount' },
          ],
        ),
      ).to.deep.equal([
        { region: 'north', n: 2, total: 17 },
        { region: 'south', n: 1, total: 5 },
        { region: 'null', n: 2, total: 3 },
      ]);
    });
    it('groups a missing or null by-field under the string "null", together with the text "null"', () => {
      const out = group(
        [...sales, rec({ region: 'null', amount: 100 })],
        ['region'],
        [{ output_field: 'n', operation: 'Count' }],
      );
      expect(out.at(-1)).to.deep.equal({ region: 'null', n: 3 });
    });
    it('groups by several fields', () => {
      const out = group(sales, ['region', 'product'], [{ output_field: 'n', operation: 'Count' }]);
      expect(out).to.deep.equal([
        { region: 'north', product: 'a', n: 1 },
        { region: 'south', product: 'a', n: 1 },
        { region: 'north', product: 'b', n: 1 },
        { region: 'null', product: 'c', n: 2 },
      ]);
    });
    it('does not confuse keys of several fields that would join alike', () => {
      const out = group(
        rows({ a: 'x:1', b: 'y' }, { a: 'x', b: '1:y' }),
        ['a', 'b'],
        [{ output_field: 'n', operation: 'Count' }],
      );
      expect(out).to.have.length(2);
    });
    it("groups numbers by value whatever their type, keeping the first record's value", () => {
      const out = group(
        rows({ k: 1 }, { k: { type: 'Float', value: 1 } }, { k: { type: 'Decimal', value: '1.0' } }, { k: 2 }),
        ['k'],
        [{ output_field: 'n', operation: 'Count' }],
      );
      expect(out).to.deep.equal([
        { k: 1, n: 3 },
        { k: 2, n: 1 },
      ]);
    });
    it('groups by dotted paths, naming the output member as written', () => {
      const out = group(
        rows({ a: { city: 'Oslo' } }, { a: { city: 'Oslo' } }, { a: {} }),
        ['a.city'],
        [{ output_field: 'n', operation: 'Count' }],
      );
      expect(out).to.deep.equal([
        { 'a.city': 'Oslo', n: 2 },
        { 'a.city': 'null', n: 1 },
      ]);
    });
    it('groups by objects and DateTimes', () => {
      const out = group(
        rows(
          { o: { x: 1, y: 2 } },
          { o: { y: 2, x: 1 } },
          { at: '2024-01-01T00:00:00Z' },
          { at: '2024-01-01T01:00:00+01:00' },
        ),
        ['o', 'at'],
        [{ output_field: 'n', operation: 'Count' }],
      );
      expect(out.map((r) => r.n)).to.deep.equal([2, 2]);
    });
    it('with no by-fields makes one group of every record, and no records make no groups', () => {
      expect(group(sales, [], [{ output_field: 'n', operation: 'Count' }])).to.deep.equal([{ n: 5 }]);
      expect(group([], ['region'], [{ output_field: 'n', operation: 'Count' }])).to.deep.equal([]);
    });
    it("reads only the records' own fields, never Object.prototype members", () => {
      const out = group(
        rows({ k: 'a' }, { k: 'a', toString: 'mine' }),
        ['k'],
        [
          { output_field: 'p', operation: 'Push', input_field: 'toString' },
          { output_field: 'h', operation: 'Push', input_field: 'hasOwnProperty' },
        ],
      );
      expect(out).to.deep.equal([{ k: 'a', p: ['mine'], h: [] }]);
      expect(group(rows({ x: 1 }), ['toString'], [])).to.deep.equal([{ toString: 'null' }]);
    });
    it('returns frozen records', () => {
      expect(Object.isFrozen(group(sales, ['region'], [])[0])).to.equal(true);
    });
    // Its speed is measured by `npm run bench -- functions-group`, not asserted here.
    it('groups 100,000 records into 1,000 groups', () => {
      const many = Array.from({ length: 100_000 }, (_, i) => Object.freeze({ k: `k${i % 1000}`, v: i }));
      const out = group(
        many,
        ['k'],
        [
          { output_field: 'n', operation: 'Count' },
          { output_field: 's', operation: 'Sum', input_field: 'v' },
          { output_field: 'd', operation: 'ApproxDistinct', input_field: 'v' },
        ],
      );
      expect(out).to.have.length(1000);
      expect(out[0]).to.deep.equal({ k: 'k0', n: 100, s: 4_950_000, d: 100 });
    });
  });

  describe('operations', () => {
    it('Count counts records, or with an input_field the present non-null values', () => {
      const data = rows({ v: 1 }, { v: null }, {});
      expect(group(data, [], [{ output_field: 'n', operation: 'Count' }])[0]!.n).to.equal(3);
      expect(group(data, [], [{ output_field: 'n', operation: 'Count', input_field: 'v' }])[0]!.n).to.equal(1);
    });
    it('Sum keeps Integers exact, past 2^53 too', () => {
      expect(aggregate('Sum', [1, 2, 3])).to.equal(6);
      expect(aggregate('Sum', [2n ** 53n, 1, 1])).to.equal(2n ** 53n + 2n);
      expect(aggregate('Sum', [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER])).to.equal(
        Number.MAX_SAFE_INTEGER,
      );
    });
    it('Sum of Integers beyond the 64-bit range is a Float', () => {
      expect(aggregate('Sum', [2n ** 62n, 2n ** 62n])).to.equal(2 ** 63);
    });
    it('Sum is a Float when any value is a Float, tagged when whole', () => {
      expect(aggregate('Sum', [1, 2.5])).to.equal(3.5);
      expect(aggregate('Sum', [1.5, 2.5])).to.deep.equal(float(4));
      expect(aggregate('Sum', [{ type: 'Float', value: 1 }, 1])).to.deep.equal(float(2));
    });
    it('Sum of Decimals is an exact Decimal at the finest scale seen', () => {
      expect(
        aggregate('Sum', [
          { type: 'Decimal', value: '0.1' },
          { type: 'Decimal', value: '0.2' },
        ]),
      ).to.deep.equal(new Tagged('Decimal', '0.3'));
      expect(aggregate('Sum', [{ type: 'Decimal', value: '1.10' }, 2])).to.deep.equal(new Tagged('Decimal', '3.10'));
      expect(
        aggregate('Sum', [
          { type: 'Decimal', value: '-5.25' },
          { type: 'Decimal', value: '1e2' },
        ]),
      ).to.deep.equal(new Tagged('Decimal', '94.75'));
      expect(
        aggregate('Sum', [
          { type: 'Decimal', value: '-0.5' },
          { type: 'Decimal', value: '0.25' },
        ]),
      ).to.deep.equal(new Tagged('Decimal', '-0.25'));
      expect(
        aggregate('Sum', [
          { type: 'Decimal', value: '99999999999999999999.01' },
          { type: 'Decimal', value: '0.99' },
        ]),
      ).to.deep.equal(new Tagged('Decimal', '100000000000000000000.00'));
    });
    it('Sum sums a Decimal with a huge exponent as a float instead of building a huge integer', () => {
      expect(
        aggregate('Sum', [
          { type: 'Decimal', value: '1e-500' },
          { type: 'Decimal', value: '1' },
        ]),
      ).to.deep.equal(float(1));
      expect(
        aggregate('Sum', [
          { type: 'Decimal', value: '1e300' },
          { type: 'Decimal', value: '1' },
        ]),
      ).to.deep.equal(new Tagged('Decimal', `1${'0'.repeat(299)}1`));
    });
    it('Sum is null when a float total overflows', () => {
      expect(aggregate('Sum', [1e308, 1e308])).to.equal(null);
    });
    it('Sum gives the same result when read twice', () => {
      const op = GROUP_OPERATION_TABLE.Sum;
      const state = op.add(op.add(op.init(), new Tagged('Decimal', '0.5')), 2);
      expect(op.result(state)).to.deep.equal(new Tagged('Decimal', '2.5'));
      expect(op.result(state)).to.deep.equal(new Tagged('Decimal', '2.5'));
    });
    it('Sum skips non-numbers and is 0 without any', () => {
      expect(aggregate('Sum', ['7', true, null, undefined, 2])).to.equal(2);
      expect(aggregate('Sum', ['x'])).to.equal(0);
    });
    it('Average is a Float, also when whole, and null without numbers', () => {
      expect(aggregate('Average', [50, 70])).to.deep.equal(float(60));
      expect(aggregate('Average', [1, 2])).to.equal(1.5);
      expect(aggregate('Average', [{ type: 'Decimal', value: '1.5' }, 2n ** 60n, 'x'])).to.equal((1.5 + 2 ** 60) / 2);
      expect(aggregate('Average', ['x', null])).to.equal(null);
    });
    it('Min and Max keep the input type and skip null and missing', () => {
      expect(aggregate('Max', [3, null, { type: 'Decimal', value: '3.5' }, undefined, 1])).to.deep.equal(
        new Tagged('Decimal', '3.5'),
      );
      expect(aggregate('Min', [3, null, { type: 'Decimal', value: '3.5' }, 1])).to.equal(1);
      expect(aggregate('Max', ['2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z'])).to.deep.equal(
        new Tagged('DateTime', '2025-01-01T00:00:00+00:00'),
      );
      expect(aggregate('Min', ['pear', 'apple'])).to.equal('apple');
      expect(aggregate('Max', [2n ** 60n, 2 ** 59])).to.equal(2n ** 60n);
      expect(aggregate('Max', [null])).to.equal(null);
    });
    it("First and Last take the first and last record's value, null when it lacks the field", () => {
      expect(aggregate('First', [undefined, 2, 3])).to.equal(null);
      expect(aggregate('First', [1, 2, 3])).to.equal(1);
      expect(aggregate('Last', [1, 2, 3])).to.equal(3);
      expect(aggregate('Last', [1, 2, undefined])).to.equal(null);
    });
    it('Push collects values in record order, skipping missing ones', () => {
      expect(aggregate('Push', [1, 'a', null, undefined, { x: 1 }])).to.deep.equal([1, 'a', null, { x: 1 }]);
    });
    it('AddToSet collects distinct values in order of first appearance', () => {
      expect(
        aggregate('AddToSet', [
          1,
          'a',
          { type: 'Float', value: 1 },
          'a',
          { x: 1, y: 2 },
          { y: 2, x: 1 },
          undefined,
          null,
          null,
        ]),
      ).to.deep.equal([1, 'a', { x: 1, y: 2 }, null]);
    });
    it('StandardDeviation is the population standard deviation, a Float', () => {
      expect(aggregate('StandardDeviation', [2, 4, 4, 4, 5, 5, 7, 9])).to.deep.equal(float(2));
      expect(aggregate('StandardDeviation', [1, 2])).to.equal(0.5);
      expect(aggregate('StandardDeviation', [5])).to.deep.equal(float(0));
      expect(aggregate('StandardDeviation', ['x'])).to.equal(null);
    });
    it('ApproxDistinct is exact for small counts', () => {
      expect(aggregate('ApproxDistinct', [1, 1, 'a', { type: 'Float', value: 1 }, null, undefined])).to.equal(3);
      const values = Array.from({ length: 256 }, (_, i) => `v${i}`);
      expect(aggregate('ApproxDistinct', [...values, ...values])).to.equal(256);
    });
    it('ApproxDistinct stays within a few percent for large counts', () => {
      for (const n of [257, 300, 1_000, 20_000, 200_000]) {
        const estimate = aggregate(
          'ApproxDistinct',
          Array.from({ length: n }, (_, i) => i),
        ) as number;
        expect(Math.abs(estimate - n) / n, `estimate ${estimate} for ${n}`).to.be.below(0.05);
      }
    });
  });

  describe('compileGroup', () => {
    it('returns the checked spec', () => {
      expect(
        compileGroup(
          {
            type: 'Group',
            by_fields: ['a'],
            functions: [
              { output_field: 'n', operation: 'Count' },
              { output_field: 's', operation: 'Sum', input_field: 'b.c' },
            ],
          },
          'g',
        ),
      ).to.deep.equal({
        by_fields: ['a'],
        functions: [
          { output_field: 'n', operation: 'Count' },
          { output_field: 's', operation: 'Sum', input_field: 'b.c' },
        ],
      });
    });
    it('names the path of an unknown operation or member', () => {
      expect(
        saveError({ by_fields: [], functions: [{ output_field: 'x', operation: 'Avg', input_field: 'a' }] }),
      ).to.match(
        /^functions\[2\]\.functions\[0\]\.operation: unknown Group operation 'Avg'; expected one of Count, Sum/,
      );
      expect(saveError({ by_fields: [], functions: [{ output_field: 'x', operation: 'Sum', field: 'a' }] })).to.equal(
        "functions[2].functions[0]: unknown member 'field'; expected output_field, operation, input_field",
      );
      expect(saveError({ by_fields: [], functions: [], group_by: [] })).to.equal(
        "functions[2]: unknown member 'group_by' in Group; expected by_fields, functions",
      );
      expect(
        saveError({ by_fields: [], functions: [{ output_field: 'x', operation: 'toString', input_field: 'a' }] }),
      ).to.match(/^functions\[2\]\.functions\[0\]\.operation: unknown Group operation 'toString'/);
    });
    it('requires an input_field for every operation but Count', () => {
      for (const operation of GROUP_OPERATIONS.filter((o) => o !== 'Count')) {
        expect(saveError({ by_fields: [], functions: [{ output_field: 'x', operation }] })).to.equal(
          `functions[2].functions[0]: ${operation} needs an input_field`,
        );
      }
    });
    it('requires by_fields and functions as arrays', () => {
      expect(saveError({ functions: [] })).to.equal(
        'functions[2].by_fields: expected an array of field names, got nothing',
      );
      expect(saveError({ by_fields: [] })).to.match(/^functions\[2\]\.functions: expected an array/);
    });
    it('refuses repeated by-fields and outputs that collide', () => {
      expect(saveError({ by_fields: ['a', 'a'], functions: [] })).to.equal(
        "functions[2].by_fields: 'a' is listed twice",
      );
      expect(saveError({ by_fields: ['a'], functions: [{ output_field: 'a', operation: 'Count' }] })).to.match(
        /^functions\[2\]\.functions\[0\]\.output_field: 'a' is already/,
      );
      expect(
        saveError({
          by_fields: [],
          functions: [
            { output_field: 'n', operation: 'Count' },
            { output_field: 'n', operation: 'Count' },
          ],
        }),
      ).to.match(/^functions\[2\]\.functions\[1\]\.output_field: 'n' is already/);
    });
    it('refuses prototype-polluting names and placeholders in field names', () => {
      expect(saveError({ by_fields: ['a.__proto__'], functions: [] })).to.match(
        /^functions\[2\]\.by_fields\[0\]: Forbidden field name '__proto__'/,
      );
      expect(saveError({ by_fields: [], functions: [{ output_field: 'constructor', operation: 'Count' }] })).to.match(
        /^functions\[2\]\.functions\[0\]\.output_field: Forbidden field name 'constructor'/,
      );
      expect(
        saveError({ by_fields: [], functions: [{ output_field: 'x', operation: 'Sum', input_field: 'prototype' }] }),
      ).to.match(/^functions\[2\]\.functions\[0\]\.input_field: Forbidden field name/);
      expect(saveError({ by_fields: ['{{f}}'], functions: [] })).to.match(
        /^functions\[2\]\.by_fields\[0\]: field names are literal/,
      );
      expect(saveError({ by_fields: [], functions: [{ output_field: '', operation: 'Count' }] })).to.match(
        /^functions\[2\]\.functions\[0\]\.output_field: expected a non-empty string/,
      );
    });
    it('bounds the number of by-fields and functions', () => {
      const fields = Array.from({ length: MAX_GROUP_BY_FIELDS + 1 }, (_, i) => `f${i}`);
      expect(saveError({ by_fields: fields, functions: [] })).to.match(
        /^functions\[2\]\.by_fields: 'by_fields' has 33 fields; at most 32/,
      );
      const fns = Array.from({ length: MAX_GROUP_FUNCTIONS + 1 }, (_, i) => ({
        output_field: `o${i}`,
        operation: 'Count',
      }));
      expect(saveError({ by_fields: [], functions: fns })).to.match(
        /^functions\[2\]\.functions: 'functions' has 257 functions; at most 256/,
      );
    });
  });
});
