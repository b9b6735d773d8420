import { expect } from 'chai';
import { fieldsFromWire, type Fields } from '../../lib/engine/index.js';
import { InvalidInput } from '../../lib/errors.js';
import {
  compileCondition,
  CONDITION_TYPES,
  CONDITIONS,
  evaluateCondition,
  MAX_CONDITION_DEPTH,
  MAX_CONDITION_NODES,
  type ResolveValue,
} from '../../lib/functions/index.js';

const rec = (body: Record<string, unknown>): Fields => fieldsFromWire(body);
const holds = (raw: unknown, rows: readonly Fields[], resolve?: ResolveValue): boolean =>
  evaluateCondition(compileCondition(raw, 'c'), rows, resolve);
const field = (type: string, f: string, value?: unknown) => ({
  type,
  value: value === undefined ? { field: f } : { field: f, value },
});

function saveError(raw: unknown, path = 'functions[1].condition'): string {
  try {
    compileCondition(raw, path);
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidInput);
    return (err as Error).message;
  }
  throw new Error('expected compileCondition to throw');
}

describe('functions/conditions', () => {
  it('has one module per condition type, each filed under its own name', () => {
    expect(Object.keys(CONDITIONS).sort()).to.deep.equal([...CONDITION_TYPES].sort());
    for (const [name, kind] of Object.entries(CONDITIONS)) expect(kind.type).to.equal(name);
  });

  describe('HasRecords and Count*', () => {
    const two = [rec({ a: 1 }), rec({ a: 2 })];
    it('HasRecords holds when there is at least one working record', () => {
      expect(holds({ type: 'HasRecords' }, two)).to.equal(true);
      expect(holds({ type: 'HasRecords' }, [])).to.equal(false);
    });
    it('accepts a unit variant with a null value (serde writes it so) but not with a real one', () => {
      expect(holds({ type: 'HasRecords', value: null }, two)).to.equal(true);
      expect(saveError({ type: 'HasRecords', value: {} })).to.equal(
        'functions[1].condition.value: HasRecords takes no value',
      );
    });
    it('compares the number of working records with count', () => {
      expect(holds({ type: 'CountEquals', value: { count: 2 } }, two)).to.equal(true);
      expect(holds({ type: 'CountEquals', value: { count: 1 } }, two)).to.equal(false);
      expect(holds({ type: 'CountGreaterThan', value: { count: 1 } }, two)).to.equal(true);
      expect(holds({ type: 'CountGreaterThan', value: { count: 2 } }, two)).to.equal(false);
      expect(holds({ type: 'CountLessThan', value: { count: 3 } }, two)).to.equal(true);
      expect(holds({ type: 'CountLessThan', value: { count: 0 } }, [])).to.equal(false);
      expect(holds({ type: 'CountEquals', value: { count: 0 } }, [])).to.equal(true);
    });
    it('refuses a count that is not a non-negative integer at save time', () => {
      expect(saveError({ type: 'CountEquals', value: { count: -1 } })).to.match(
        /^functions\[1\]\.condition\.value\.count: expected a non-negative integer/,
      );
      expect(saveError({ type: 'CountEquals', value: { count: 1.5 } })).to.match(
        /^functions\[1\]\.condition\.value\.count: /,
      );
      expect(saveError({ type: 'CountEquals', value: { count: 'two' } })).to.match(
        /^functions\[1\]\.condition\.value\.count: /,
      );
      expect(saveError({ type: 'CountEquals', value: {} })).to.equal(
        "functions[1].condition.value: missing member 'count'",
      );
    });
    it('resolves a placeholder count at evaluation and checks it then', () => {
      const cond = compileCondition({ type: 'CountGreaterThan', value: { count: '{{min}}' } }, 'c');
      expect(evaluateCondition(cond, two, () => 1)).to.equal(true);
      expect(evaluateCondition(cond, two, () => 2)).to.equal(false);
      expect(() => evaluateCondition(cond, two, () => 'x')).to.throw(
        InvalidInput,
        /^c\.value\.count: expected a non-negative integer/,
      );
    });
  });

  describe('FieldEquals', () => {
    it('tests the first working record only', () => {
      const rows = [rec({ status: 'open' }), rec({ status: 'closed' })];
      expect(holds(field('FieldEquals', 'status', 'open'), rows)).to.equal(true);
      expect(holds(field('FieldEquals', 'status', 'closed'), rows)).to.equal(false);
    });
    it('is false when there are no working records, even for null', () => {
      expect(holds(field('FieldEquals', 'status', 'open'), [])).to.equal(false);
      expect(holds(field('FieldEquals', 'status', null), [])).to.equal(false);
    });
    it('with a null value tests null or missing', () => {
      expect(holds(field('FieldEquals', 'x', null), [rec({ x: null })])).to.equal(true);
      expect(holds(field('FieldEquals', 'x', null), [rec({ y: 1 })])).to.equal(true);
      expect(holds(field('FieldEquals', 'x', null), [rec({ x: 0 })])).to.equal(false);
    });
    it('follows dotted paths into objects and arrays', () => {
      const rows = [rec({ claim: { claimed: true, items: [{ n: 3 }] } })];
      expect(holds(field('FieldEquals', 'claim.claimed', true), rows)).to.equal(true);
      expect(holds(field('FieldEquals', 'claim.items.0.n', 3), rows)).to.equal(true);
      expect(holds(field('FieldEquals', 'claim.missing', null), rows)).to.equal(true);
    });
    it('compares numbers across Integer, Float, Decimal and 64-bit integers exactly', () => {
      expect(holds(field('FieldEquals', 'n', 2), [rec({ n: { type: 'Float', value: 2 } })])).to.equal(true);
      expect(holds(field('FieldEquals', 'n', { type: 'Decimal', value: '2.50' }), [rec({ n: 2.5 })])).to.equal(true);
      expect(holds(field('FieldEquals', 'n', 2n ** 60n), [rec({ n: 2n ** 60n })])).to.equal(true);
      expect(holds(field('FieldEquals', 'n', 2n ** 53n + 1n), [rec({ n: 2 ** 53 })])).to.equal(false);
    });
    it('compares DateTimes by instant, whether typed or plain RFC 3339 text', () => {
      const rows = [rec({ at: '2024-05-01T10:00:00Z' })];
      expect(
        holds(field('FieldEquals', 'at', { type: 'DateTime', value: '2024-05-01T12:00:00+02:00' }), rows),
      ).to.equal(true);
      expect(holds(field('FieldEquals', 'at', '2024-05-01T10:00:00.000Z'), rows)).to.equal(true);
    });
    it('compares objects and arrays member by member', () => {
      expect(holds(field('FieldEquals', 'o', { a: [1, 2] }), [rec({ o: { a: [1, 2] } })])).to.equal(true);
      expect(holds(field('FieldEquals', 'o', { a: [2, 1] }), [rec({ o: { a: [1, 2] } })])).to.equal(false);
    });
    it('requires both field and value', () => {
      expect(saveError({ type: 'FieldEquals', value: { field: 'a' } })).to.equal(
        "functions[1].condition.value: missing member 'value'",
      );
      expect(saveError({ type: 'FieldEquals', value: { value: 1 } })).to.equal(
        "functions[1].condition.value: missing member 'field'",
      );
    });
  });

  describe('FieldExists', () => {
    it('holds when the first record has the field, null included', () => {
      expect(holds(field('FieldExists', 'a'), [rec({ a: null })])).to.equal(true);
      expect(holds(field('FieldExists', 'a.b'), [rec({ a: { b: 1 } })])).to.equal(true);
      expect(holds(field('FieldExists', 'a'), [rec({ b: 1 }), rec({ a: 1 })])).to.equal(false);
      expect(holds(field('FieldExists', 'a'), [])).to.equal(false);
    });
    it('accepts the spec spelling with a value member, and ignores it', () => {
      expect(holds(field('FieldExists', 'a', 'whatever'), [rec({ a: 1 })])).to.equal(true);
      expect(saveError(field('FieldExists', 'a', JSON.parse('{"__proto__": 1}')))).to.match(
        /^functions\[1\]\.condition\.value\.value: Forbidden field name '__proto__'/,
      );
    });
  });

  describe('range comparisons', () => {
    const rows = [rec({ n: 10, at: '2024-05-01T10:00:00Z', s: 'm', big: 2n ** 60n })];
    it('order numbers, strings, DateTimes and big integers as the query engine does', () => {
      expect(holds(field('FieldGreaterThan', 'n', 9.5), rows)).to.equal(true);
      expect(holds(field('FieldGreaterThan', 'n', 10), rows)).to.equal(false);
      expect(holds(field('FieldGreaterThanOrEqual', 'n', { type: 'Decimal', value: '10' }), rows)).to.equal(true);
      expect(holds(field('FieldLessThan', 'n', 11), rows)).to.equal(true);
      expect(holds(field('FieldLessThanOrEqual', 'n', 9), rows)).to.equal(false);
      expect(holds(field('FieldLessThan', 's', 'n'), rows)).to.equal(true);
      expect(
        holds(field('FieldGreaterThan', 'at', { type: 'DateTime', value: '2024-05-01T09:59:59Z' }), rows),
      ).to.equal(true);
      expect(holds(field('FieldLessThan', 'at', '2024-05-01T12:00:00+01:00'), rows)).to.equal(true);
      expect(holds(field('FieldGreaterThan', 'big', 2 ** 60 - 2 ** 10), rows)).to.equal(true);
      expect(holds(field('FieldGreaterThan', 'big', 2n ** 60n), rows)).to.equal(false);
    });
    it('are false for a missing or null field, and across unrelated kinds', () => {
      expect(holds(field('FieldLessThan', 'nope', 5), rows)).to.equal(false);
      expect(holds(field('FieldLessThan', 'n', 'zzz'), rows)).to.equal(false);
      expect(holds(field('FieldGreaterThanOrEqual', 'x', 0), [rec({ x: null })])).to.equal(false);
      expect(holds(field('FieldGreaterThan', 'n', 1), [])).to.equal(false);
    });
    it('refuse a constant null value at save time', () => {
      expect(saveError(field('FieldGreaterThan', 'n', null))).to.equal(
        'functions[1].condition.value.value: FieldGreaterThan needs a non-null value to compare with',
      );
    });
  });

  describe('And, Or, Not', () => {
    const rows = [rec({ a: 1, b: 2 })];
    const yes = field('FieldEquals', 'a', 1);
    const no = field('FieldEquals', 'a', 2);
    it('combine conditions', () => {
      expect(holds({ type: 'And', value: { conditions: [yes, yes] } }, rows)).to.equal(true);
      expect(holds({ type: 'And', value: { conditions: [yes, no] } }, rows)).to.equal(false);
      expect(holds({ type: 'Or', value: { conditions: [no, yes] } }, rows)).to.equal(true);
      expect(holds({ type: 'Or', value: { conditions: [no, no] } }, rows)).to.equal(false);
      expect(holds({ type: 'Not', value: { condition: no } }, rows)).to.equal(true);
      expect(holds({ type: 'Not', value: { condition: { type: 'HasRecords' } } }, [])).to.equal(true);
    });
    it('treat an empty list as And: true, Or: false', () => {
      expect(holds({ type: 'And', value: { conditions: [] } }, rows)).to.equal(true);
      expect(holds({ type: 'Or', value: { conditions: [] } }, rows)).to.equal(false);
    });
    it('stop at the first deciding condition, so later placeholders are not resolved', () => {
      const resolved: unknown[] = [];
      const resolve: ResolveValue = (raw) => {
        resolved.push(raw);
        return 1;
      };
      const later = field('FieldEquals', 'a', '{{p}}');
      expect(holds({ type: 'Or', value: { conditions: [yes, later] } }, rows, resolve)).to.equal(true);
      expect(holds({ type: 'And', value: { conditions: [no, later] } }, rows, resolve)).to.equal(false);
      expect(resolved).to.deep.equal([]);
    });
    it('name the path of a bad nested condition', () => {
      expect(
        saveError({
          type: 'And',
          value: {
            conditions: [
              yes,
              { type: 'Or', value: { conditions: [{ type: 'FieldEqual', value: { field: 'a', value: 1 } }] } },
            ],
          },
        }),
      ).to.equal("functions[1].condition.value.conditions[1].value.conditions[0]: unknown condition type 'FieldEqual'");
      expect(saveError({ type: 'Not', value: { condition: 'HasRecords' } })).to.equal(
        'functions[1].condition.value.condition: expected a condition object {type, value}, got a string',
      );
      expect(saveError({ type: 'Or', value: { conditions: {} } })).to.equal(
        'functions[1].condition.value.conditions: expected an array of conditions, got an object',
      );
    });
  });

  describe('placeholders', () => {
    it('hands {{name}} text to resolve at evaluation, keeping the resolved type', () => {
      const cond = compileCondition(field('FieldEquals', 'n', '{{limit}}'), 'c');
      const seen: unknown[] = [];
      expect(
        evaluateCondition(cond, [rec({ n: 5 })], (raw) => {
          seen.push(raw);
          return 5;
        }),
      ).to.equal(true);
      expect(seen).to.deep.equal(['{{limit}}']);
    });
    it('hands Parameter references and typed wrappers holding placeholders to resolve', () => {
      const ref = { type: 'Parameter', name: 'since' };
      const cond = compileCondition(field('FieldGreaterThan', 'at', ref), 'c');
      expect(
        evaluateCondition(cond, [rec({ at: '2024-05-02T00:00:00Z' })], () => ({
          type: 'DateTime',
          value: '2024-05-01T00:00:00Z',
        })),
      ).to.equal(true);
      const wrapped = compileCondition(field('FieldEquals', 'price', { type: 'Decimal', value: '{{p}}' }), 'c');
      expect(evaluateCondition(wrapped, [rec({ price: 9.5 })], () => ({ type: 'Decimal', value: '9.50' }))).to.equal(
        true,
      );
    });
    it('lets prepareValue compile placeholder values once, at save time', () => {
      const prepared: string[] = [];
      const cond = compileCondition(field('FieldEquals', 'n', '{{x}}'), 'fn.condition', {
        prepareValue: (raw, path) => {
          prepared.push(path);
          return { compiled: raw };
        },
      });
      expect(prepared).to.deep.equal(['fn.condition.value.value']);
      expect(
        evaluateCondition(cond, [rec({ n: 'ok' })], (raw) =>
          (raw as { compiled: string }).compiled === '{{x}}' ? 'ok' : 'no',
        ),
      ).to.equal(true);
    });
    it('accepts engine values (a DateTime) back from resolve', () => {
      const cond = compileCondition(field('FieldEquals', 'at', '{{at}}'), 'c');
      const rows = [rec({ at: '2024-05-01T10:00:00Z' })];
      expect(evaluateCondition(cond, rows, () => rows[0]!.at)).to.equal(true);
    });
    it('throws InvalidInput naming the path when a resolved value is unusable', () => {
      const cond = compileCondition(
        field('FieldEquals', 'at', { type: 'DateTime', value: '{{d}}' }),
        'functions[0].condition',
      );
      expect(() =>
        evaluateCondition(cond, [rec({ at: 1 })], () => ({ type: 'DateTime', value: 'yesterday' })),
      ).to.throw(InvalidInput, /^functions\[0\]\.condition\.value\.value: Invalid DateTime/);
    });
    it('never calls resolve for constant values', () => {
      expect(
        holds(field('FieldEquals', 'a', 1), [rec({ a: 1 })], () => {
          throw new Error('resolved');
        }),
      ).to.equal(true);
    });
  });

  describe('save-time validation', () => {
    it('refuses a misspelt type, a missing type and unknown members', () => {
      expect(saveError({ type: 'FieldEqual', value: { field: 'a', value: 1 } })).to.equal(
        "functions[1].condition: unknown condition type 'FieldEqual'",
      );
      expect(saveError({ value: {} })).to.equal(
        "functions[1].condition: a condition needs a string 'type', got nothing",
      );
      expect(saveError({ type: 'HasRecords', extra: 1 })).to.equal(
        "functions[1].condition: unknown member 'extra' in a condition; expected type, value",
      );
      expect(saveError({ type: 'FieldEquals', value: { field: 'a', value: 1, op: 'x' } })).to.equal(
        "functions[1].condition.value: unknown member 'op'; expected field, value",
      );
      expect(saveError({ type: 'CountEquals' })).to.equal("functions[1].condition: CountEquals needs a 'value'");
      expect(saveError(null)).to.equal('functions[1].condition: expected a condition object {type, value}, got null');
    });
    it('does not take inherited names for condition types', () => {
      expect(saveError({ type: 'toString', value: {} })).to.equal(
        "functions[1].condition: unknown condition type 'toString'",
      );
      expect(saveError({ type: '__proto__', value: {} })).to.equal(
        "functions[1].condition: unknown condition type '__proto__'",
      );
    });
    it('refuses prototype-polluting field paths', () => {
      for (const f of ['__proto__', 'a.constructor', 'prototype.x']) {
        expect(saveError(field('FieldEquals', f, 1))).to.match(
          /^functions\[1\]\.condition\.value: Forbidden field name/,
        );
      }
      expect(saveError(field('FieldExists', 'a..b'))).to.match(/^functions\[1\]\.condition\.value: Invalid field path/);
      expect(saveError(field('FieldExists', ''))).to.match(/^functions\[1\]\.condition\.value: Invalid field name/);
    });
    it('refuses prototype-polluting member names inside values, placeholders or not', () => {
      const hostile = JSON.parse('{"__proto__": {"x": 1}}');
      expect(saveError(field('FieldEquals', 'a', hostile))).to.match(
        /^functions\[1\]\.condition\.value\.value: Forbidden field name '__proto__'/,
      );
      const withPlaceholder = JSON.parse('{"a": "{{p}}", "constructor": 1}');
      expect(saveError(field('FieldEquals', 'a', withPlaceholder))).to.match(
        /^functions\[1\]\.condition\.value\.value: Forbidden field name 'constructor'/,
      );
    });
    it('refuses placeholders in field names', () => {
      expect(saveError(field('FieldEquals', '{{f}}', 1))).to.match(
        /^functions\[1\]\.condition\.value: 'field' must name a field literally/,
      );
    });
    it('refuses a bad constant typed value at save time', () => {
      expect(saveError(field('FieldEquals', 'a', { type: 'DateTime', value: 'soon' }))).to.match(
        /^functions\[1\]\.condition\.value\.value: Invalid DateTime/,
      );
      expect(saveError(field('FieldEquals', 'a', 2n ** 70n))).to.match(
        /^functions\[1\]\.condition\.value\.value: Integer .* outside the 64-bit/,
      );
    });
    it('bounds nesting depth', () => {
      let deep: unknown = { type: 'HasRecords' };
      for (let i = 1; i < MAX_CONDITION_DEPTH; i++) deep = { type: 'Not', value: { condition: deep } };
      expect(holds(deep, [])).to.equal(MAX_CONDITION_DEPTH % 2 === 0);
      expect(saveError({ type: 'Not', value: { condition: deep } }, 'c')).to.match(
        new RegExp(`^c(\\.value\\.condition)+: conditions nested deeper than ${MAX_CONDITION_DEPTH} levels$`),
      );
    });
    it('bounds the number of conditions in one tree', () => {
      const many = Array.from({ length: MAX_CONDITION_NODES }, () => ({ type: 'HasRecords' }));
      expect(saveError({ type: 'And', value: { conditions: many } }, 'c')).to.equal(
        `c.value.conditions[${MAX_CONDITION_NODES - 1}]: more than ${MAX_CONDITION_NODES} conditions in one condition`,
      );
      expect(holds({ type: 'And', value: { conditions: many.slice(1) } }, [rec({})])).to.equal(true);
    });
  });
});
