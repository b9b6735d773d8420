import { expect } from 'chai';
import { SchemaViolation } from '../../../../lib/errors.js';
import { applyDefaults, parseSchema, validateRecord, type Schema } from '../../../../lib/engine/schema/index.js';
import { fieldFromWire, fieldsFromWire, Tagged, type Fields } from '../../../../lib/engine/values/index.js';

const NOW = '2024-06-01T12:00:00Z';

function schemaOf(fields: Record<string, unknown>): Schema {
  return parseSchema({ fields }, NOW);
}

function constraintsOf(schema: Schema, record: Fields): string[] {
  return validateRecord(schema, record, 'insert').map((d) => `${d.field}:${d.constraint}`);
}

describe('validateRecord', () => {
  describe('required', () => {
    const schema = schemaOf({ name: { field_type: 'String', required: true }, nick: { field_type: 'String' } });

    it('reports a missing required field', () => {
      expect(validateRecord(schema, {}, 'insert')).to.deep.equal([
        {
          field: 'name',
          constraint: 'required',
          expected: 'a value',
          actual: 'missing',
          message: "Field 'name' is required",
        },
      ]);
    });

    it('reports a required field set to null', () => {
      expect(validateRecord(schema, { name: null }, 'insert')[0]).to.include({ constraint: 'required', actual: null });
    });

    it('applies the same rule to merged records in update mode', () => {
      expect(constraintsOf(schema, {})).to.deep.equal(
        validateRecord(schema, {}, 'update').map((d) => `${d.field}:${d.constraint}`),
      );
      expect(validateRecord(schema, { name: 'kept' }, 'update')).to.deep.equal([]);
    });

    it('allows null and absence for fields that are not required', () => {
      expect(validateRecord(schema, { name: 'a', nick: null }, 'insert')).to.deep.equal([]);
      expect(validateRecord(schema, { name: 'a' }, 'insert')).to.deep.equal([]);
    });

    it('lets a required Null field hold null', () => {
      const s = schemaOf({ gone: { field_type: 'Null', required: true } });
      expect(validateRecord(s, { gone: null }, 'insert')).to.deep.equal([]);
      expect(constraintsOf(s, {})).to.deep.equal(['gone:required']);
    });

    it('does not look up inherited properties as fields', () => {
      const s = schemaOf({ toString: { field_type: 'String', required: true } });
      expect(constraintsOf(s, {})).to.deep.equal(['toString:required']);
    });
  });

  describe('type', () => {
    it('reports the declared and actual type names', () => {
      const s = schemaOf({ age: { field_type: 'Integer' } });
      expect(validateRecord(s, { age: 'twelve' }, 'insert')).to.deep.equal([
        {
          field: 'age',
          constraint: 'type',
          expected: 'Integer',
          actual: 'String',
          message: "Field 'age' must be of type Integer (got String)",
        },
      ]);
    });

    it('rejects a bare RFC 3339 string, inferred as DateTime, in a String field', () => {
      const s = schemaOf({ label: { field_type: 'String' } });
      expect(constraintsOf(s, fieldsFromWire({ label: '2024-01-01T00:00:00Z' }))).to.deep.equal(['label:type']);
    });

    it('accepts wire values converted by fieldsFromWire for every declared type', () => {
      const s = schemaOf({
        s: { field_type: 'String' },
        i: { field_type: 'Integer' },
        f: { field_type: 'Float' },
        n: { field_type: 'Number' },
        b: { field_type: 'Boolean' },
        a: { field_type: 'Array' },
        o: { field_type: 'Object' },
        d: { field_type: 'DateTime' },
        dec: { field_type: 'Decimal' },
        u: { field_type: 'UUID' },
        v: { field_type: 'Vector' },
        set: { field_type: 'Set' },
        bin: { field_type: 'Binary' },
        by: { field_type: 'Bytes' },
        dur: { field_type: 'Duration' },
        nul: { field_type: 'Null' },
      });
      const record = fieldsFromWire({
        s: 'x',
        i: 3,
        f: 2.5,
        n: { type: 'Number', value: 7 },
        b: true,
        a: [1, 'two'],
        o: { k: 1 },
        d: '2024-01-01T00:00:00Z',
        dec: { type: 'Decimal', value: '1.10' },
        u: '123e4567-e89b-12d3-a456-426614174000',
        v: [0.1, 0.2],
        set: ['a', 'b'],
        bin: 'aGVsbG8=',
        by: { type: 'Bytes', value: [1, 2] },
        dur: { type: 'Duration', value: { secs: 1, nanos: 0 } },
        nul: null,
      });
      expect(validateRecord(s, record, 'insert')).to.deep.equal([]);
    });
  });

  describe('min and max', () => {
    it('checks numeric bounds with a readable message', () => {
      const s = schemaOf({ age: { field_type: 'Integer', min: 18, max: 65 } });
      expect(validateRecord(s, { age: 12 }, 'insert')).to.deep.equal([
        {
          field: 'age',
          constraint: 'min',
          expected: 18,
          actual: 12,
          message: "Field 'age' must be >= 18 (got 12)",
        },
      ]);
      expect(validateRecord(s, { age: 70 }, 'insert')[0]).to.include({
        constraint: 'max',
        message: "Field 'age' must be <= 65 (got 70)",
      });
      expect(validateRecord(s, { age: 18 }, 'insert')).to.deep.equal([]);
      expect(validateRecord(s, { age: 65 }, 'insert')).to.deep.equal([]);
    });

    it('compares Float, Number and Decimal values numerically', () => {
      const s = schemaOf({
        f: { field_type: 'Float', max: 1.5 },
        n: { field_type: 'Number', min: 0 },
        d: { field_type: 'Decimal', min: '0.10', max: 100 },
      });
      expect(constraintsOf(s, { f: 1.6, n: -1, d: new Tagged('Decimal', '0.05') })).to.deep.equal([
        'f:max',
        'n:min',
        'd:min',
      ]);
      expect(constraintsOf(s, { f: new Tagged('Float', 1), n: new Tagged('Number', 0), d: '99.99' })).to.deep.equal([]);
      expect(constraintsOf(s, { d: 100.01 })).to.deep.equal(['d:max']);
    });

    it('compares 64-bit Integer bounds exactly, where floats would round them together', () => {
      const max = 2n ** 63n - 1n;
      const s = schemaOf({ n: { field_type: 'Integer', min: 2n ** 53n + 1n, max: max - 1n } });
      expect(validateRecord(s, { n: max }, 'insert')).to.deep.equal([
        {
          field: 'n',
          constraint: 'max',
          expected: max - 1n,
          actual: max,
          message: "Field 'n' must be <= 9223372036854775806 (got 9223372036854775807)",
        },
      ]);
      expect(constraintsOf(s, { n: 2n ** 53n })).to.deep.equal(['n:min']);
      expect(constraintsOf(s, { n: max - 1n })).to.deep.equal([]);
      expect(constraintsOf(s, { n: 2n ** 53n + 1n })).to.deep.equal([]);
    });

    it('bounds the length of strings in characters', () => {
      const s = schemaOf({ name: { field_type: 'String', min: 2, max: 4 } });
      expect(validateRecord(s, { name: 'a' }, 'insert')[0]).to.deep.equal({
        field: 'name',
        constraint: 'min',
        expected: 2,
        actual: 1,
        message: "Field 'name' must be at least 2 characters long (got 1)",
      });
      expect(constraintsOf(s, { name: 'abcde' })).to.deep.equal(['name:max']);
      expect(constraintsOf(s, { name: '😀😀😀😀' })).to.deep.equal([]);
    });

    it('bounds the number of items of Array, Vector and Set values', () => {
      const s = schemaOf({
        a: { field_type: 'Array', max: 2 },
        v: { field_type: 'Vector', min: 3, max: 3 },
        t: { field_type: 'Set', min: 2 },
      });
      expect(constraintsOf(s, { a: [1, 2, 3], v: new Tagged('Vector', [1, 2]), t: ['x'] })).to.deep.equal([
        'a:max',
        'v:min',
        't:min',
      ]);
      expect(validateRecord(s, { a: [1, 2, 3] }, 'insert')[0]!.message).to.equal(
        "Field 'a' must have at most 2 items (got 3)",
      );
      expect(
        constraintsOf(s, { a: new Tagged('Set', [1]), v: [1, 2, 3], t: new Tagged('Set', ['x', 'y']) }),
      ).to.deep.equal([]);
    });

    it('counts a bare array in a Set field after removing duplicates', () => {
      const s = schemaOf({ t: { field_type: 'Set', min: 2 } });
      expect(constraintsOf(s, { t: ['x', 'x'] })).to.deep.equal(['t:min']);
    });

    it('compares DateTime values by instant', () => {
      const s = schemaOf({ at: { field_type: 'DateTime', min: '2024-01-01T00:00:00Z', max: '2024-12-31T23:59:59Z' } });
      const early = fieldFromWire('2024-01-01T00:30:00+01:00', 'at');
      const detail = validateRecord(s, { at: early }, 'insert')[0]!;
      expect(detail).to.include({
        constraint: 'min',
        expected: '2024-01-01T00:00:00+00:00',
        actual: '2023-12-31T23:30:00+00:00',
      });
      expect(detail.message).to.equal(
        "Field 'at' must be >= 2024-01-01T00:00:00+00:00 (got 2023-12-31T23:30:00+00:00)",
      );
      expect(constraintsOf(s, { at: fieldFromWire('2025-01-01T00:00:00Z', 'at') })).to.deep.equal(['at:max']);
      expect(constraintsOf(s, { at: fieldFromWire('2024-06-01T00:00:00Z', 'at') })).to.deep.equal([]);
    });
  });

  describe('regex', () => {
    const s = schemaOf({
      code: { field_type: 'String', regex: '^[A-Z]{3}$' },
      tag: { field_type: 'String', regex: 'ab' },
    });

    it('reports a string that does not match', () => {
      expect(validateRecord(s, { code: 'abc' }, 'insert')).to.deep.equal([
        {
          field: 'code',
          constraint: 'regex',
          expected: '^[A-Z]{3}$',
          actual: 'abc',
          message: "Field 'code' must match the pattern '^[A-Z]{3}$' (got 'abc')",
        },
      ]);
    });

    it('uses the test semantics of a JavaScript RegExp (unanchored unless the pattern anchors)', () => {
      expect(constraintsOf(s, { code: 'ABC', tag: 'xxabyy' })).to.deep.equal([]);
      expect(constraintsOf(s, { tag: 'ba' })).to.deep.equal(['tag:regex']);
    });

    it('answers a catastrophic backtracking pattern at once', () => {
      const started = Date.now();
      expect(
        constraintsOf(schemaOf({ w: { field_type: 'String', regex: '^(a+)+$' } }), { w: 'a'.repeat(40) + '!' }),
      ).to.deep.equal(['w:regex']);
      expect(Date.now() - started).to.be.below(2000);
    });

    it('reports a stored pattern the engine refuses as a violation that says so, for every value', () => {
      // A schema an older build saved without checking the pattern: built directly, not parsed.
      const base = schemaOf({ code: { field_type: 'String' } });
      const legacy: Schema = { ...base, fields: { code: { ...base.fields.code!, regex: '(?=A)' } } };
      expect(validateRecord(legacy, { code: 'ABC' }, 'insert')).to.deep.equal([
        {
          field: 'code',
          constraint: 'regex',
          expected: '(?=A)',
          actual: 'ABC',
          message:
            "Field 'code': pattern cannot be used: lookahead such as (?=...) or (?!...) is not supported; replace " +
            "the field's regex",
        },
      ]);
      expect(validateRecord(legacy, {}, 'insert'), 'absent values are not checked').to.deep.equal([]);
    });
  });

  describe('UUID shape and format', () => {
    const EXAMPLE = 'b1ffcd00-0d1c-5fg9-8a1a-000000000000';

    it('accepts any 8-4-4-4-12 letters and digits in a UUID field, bare or wrapped', () => {
      const s = schemaOf({ u: { field_type: 'UUID' } });
      expect(validateRecord(s, fieldsFromWire({ u: EXAMPLE }), 'insert')).to.deep.equal([]);
      expect(validateRecord(s, fieldsFromWire({ u: { type: 'UUID', value: EXAMPLE } }), 'insert')).to.deep.equal([]);
      expect(constraintsOf(s, fieldsFromWire({ u: 'b1ffcd00-0d1c-5fg9-8a1a' }))).to.deep.equal(['u:type']);
    });

    it('reports a value that is not strict RFC 4122 when the field asks for format "rfc4122"', () => {
      const s = schemaOf({ u: { field_type: 'UUID', format: 'rfc4122' } });
      expect(validateRecord(s, fieldsFromWire({ u: { type: 'UUID', value: EXAMPLE } }), 'insert')).to.deep.equal([
        {
          field: 'u',
          constraint: 'format',
          expected: 'rfc4122',
          actual: EXAMPLE,
          message: `Field 'u' must be an RFC 4122 UUID: hex digits, version 1-8, variant 8, 9, a or b (got ${EXAMPLE})`,
        },
      ]);
      expect(constraintsOf(s, fieldsFromWire({ u: '123e4567-e89b-02d3-a456-426614174000' }))).to.deep.equal([
        'u:format',
      ]);
      expect(validateRecord(s, fieldsFromWire({ u: '123e4567-e89b-12d3-a456-426614174000' }), 'insert')).to.deep.equal(
        [],
      );
    });
  });

  describe('enums', () => {
    it('reports a value outside the allowed set', () => {
      const s = schemaOf({ color: { field_type: 'String', enums: ['red', 'green'] } });
      expect(validateRecord(s, { color: 'blue' }, 'insert')).to.deep.equal([
        {
          field: 'color',
          constraint: 'enums',
          expected: ['red', 'green'],
          actual: 'blue',
          message: "Field 'color' must be one of 'red', 'green' (got 'blue')",
        },
      ]);
      expect(constraintsOf(s, { color: 'red' })).to.deep.equal([]);
    });

    it('matches numbers across their stored spellings', () => {
      const s = schemaOf({ f: { field_type: 'Float', enums: [1, 2.5] }, i: { field_type: 'Integer', enums: [1, 2] } });
      expect(constraintsOf(s, { f: 1, i: new Tagged('Float', 2) })).to.deep.equal([]);
      expect(constraintsOf(s, { f: 3, i: 3 })).to.deep.equal(['f:enums', 'i:enums']);
    });

    it('matches 64-bit Integer enums exactly', () => {
      const s = schemaOf({ i: { field_type: 'Integer', enums: [2n ** 53n + 1n, 2n ** 63n - 1n] } });
      expect(constraintsOf(s, { i: 2n ** 53n + 1n })).to.deep.equal([]);
      expect(constraintsOf(s, { i: 2n ** 53n + 2n })).to.deep.equal(['i:enums']);
      expect(validateRecord(s, { i: 2n ** 53n }, 'insert')[0]!.message).to.equal(
        "Field 'i' must be one of 9007199254740993, 9223372036854775807 (got 9007199254740992)",
      );
    });
  });

  describe('multiple violations', () => {
    it('reports one detail per violated constraint across fields', () => {
      const s = schemaOf({
        name: { field_type: 'String', required: true },
        age: { field_type: 'Integer', min: 18 },
        code: { field_type: 'String', min: 5, regex: '^[0-9]+$', enums: ['12345'] },
        email: { field_type: 'String' },
      });
      const details = validateRecord(s, { age: 12, code: 'ab', email: 7 }, 'insert');
      expect(details.map((d) => `${d.field}:${d.constraint}`)).to.deep.equal([
        'name:required',
        'age:min',
        'code:min',
        'code:regex',
        'code:enums',
        'email:type',
      ]);
      expect(() => {
        throw new SchemaViolation(details);
      }).to.throw(/Schema validation failed: Field 'name' is required; /);
    });

    it('reports only the type when the type is wrong', () => {
      const s = schemaOf({ code: { field_type: 'String', min: 5, regex: '^x' } });
      expect(constraintsOf(s, { code: 3 })).to.deep.equal(['code:type']);
    });
  });

  it('ignores fields the schema does not declare', () => {
    const s = schemaOf({ a: { field_type: 'Integer' } });
    expect(validateRecord(s, { a: 1, extra: 'anything', more: [1] }, 'insert')).to.deep.equal([]);
  });

  it('accepts any record against an empty schema', () => {
    expect(validateRecord(parseSchema(undefined, NOW), { x: 1 }, 'insert')).to.deep.equal([]);
  });
});

describe('applyDefaults', () => {
  const schema = schemaOf({
    status: { field_type: 'String', default: 'new' },
    score: { field_type: 'Float', default: 0 },
    name: { field_type: 'String' },
  });

  it('fills omitted fields with their defaults in stored form', () => {
    expect(applyDefaults(schema, { name: 'a' })).to.deep.equal({
      name: 'a',
      status: 'new',
      score: new Tagged('Float', 0),
    });
  });

  it('keeps values the record carries, including an explicit null', () => {
    expect(applyDefaults(schema, { status: 'done', score: null })).to.deep.equal({ status: 'done', score: null });
  });

  it('returns a new object and leaves the input untouched', () => {
    const input = Object.freeze({ name: 'a' });
    const out = applyDefaults(schema, input);
    expect(out).to.not.equal(input);
    expect(input).to.deep.equal({ name: 'a' });
  });

  it('lets a defaulted required field pass validation', () => {
    const s = schemaOf({ status: { field_type: 'String', required: true, default: 'new' } });
    expect(validateRecord(s, applyDefaults(s, {}), 'insert')).to.deep.equal([]);
  });
});
