import { expect } from 'chai';
import { InvalidInput, MESSAGES } from '../../../lib/errors.js';
import { parseFieldDef, OPTIONS_BY_TYPE, type FieldOption } from '../../../lib/engine/schema/index.js';
import { Tagged, TYPE_NAMES, type TypeName } from '../../../lib/engine/values/index.js';

function errorOf(fn: () => unknown): InvalidInput {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidInput);
    return err as InvalidInput;
  }
  throw new Error('expected an InvalidInput');
}

/** A valid value of each option for the types that allow it. */
const SAMPLE_OPTION: Record<FieldOption, Partial<Record<TypeName, unknown>>> = {
  min: {
    String: 1,
    Integer: 0,
    Float: 0.5,
    Number: -1,
    Array: 1,
    DateTime: '2024-01-01T00:00:00Z',
    Decimal: '0.01',
    Vector: 2,
    Set: 1,
  },
  max: {
    String: 9,
    Integer: 10,
    Float: 9.5,
    Number: 100,
    Array: 5,
    DateTime: '2030-01-01T00:00:00Z',
    Decimal: 99.5,
    Vector: 4,
    Set: 3,
  },
  regex: { String: '^[a-z]+$' },
  enums: { String: ['a', 'b'], Integer: [1, 2], Float: [1.5, 2], Number: [1, 2.5] },
  format: { String: 'rfc4122', UUID: 'rfc4122' },
};

describe('parseFieldDef', () => {
  describe('field_type', () => {
    it('rejects a definition without field_type with the message verbatim', () => {
      const err = errorOf(() => parseFieldDef({ required: true }, 'age'));
      expect(err.message).to.equal(MESSAGES.missingFieldType);
      expect(err.message).to.equal("missing field 'field_type'");
      expect(err.details).to.deep.equal([
        { field: 'age', constraint: 'field_type', message: "Field 'age' has no field_type" },
      ]);
    });

    it('treats a null field_type as missing', () => {
      expect(errorOf(() => parseFieldDef({ field_type: null }, 'age')).message).to.equal(MESSAGES.missingFieldType);
    });

    it('accepts every PascalCase type name', () => {
      for (const type of TYPE_NAMES) expect(parseFieldDef({ field_type: type }, 'f').field_type).to.equal(type);
    });

    it('rejects lowercase type names and suggests the right spelling', () => {
      const err = errorOf(() => parseFieldDef({ field_type: 'string' }, 'name'));
      expect(err.message).to.match(/Field 'name'.*unknown field_type 'string'.*case-sensitive.*'String'/);
      expect(() => parseFieldDef({ field_type: 'datetime' }, 'f')).to.throw(InvalidInput, /'DateTime'/);
    });

    it('rejects unknown type names and non-string field_type', () => {
      expect(() => parseFieldDef({ field_type: 'Text' }, 'f')).to.throw(InvalidInput, /unknown field_type 'Text'/);
      expect(() => parseFieldDef({ field_type: 3 }, 'f')).to.throw(InvalidInput, /must be a string/);
    });
  });

  describe('shape', () => {
    it('fills required and unique with false and leaves options absent', () => {
      expect(parseFieldDef({ field_type: 'String' }, 'f')).to.deep.equal({
        field_type: 'String',
        required: false,
        unique: false,
      });
    });

    it('returns a frozen definition', () => {
      expect(Object.isFrozen(parseFieldDef({ field_type: 'Integer', enums: [1] }, 'f'))).to.equal(true);
    });

    it('rejects non-object definitions', () => {
      expect(() => parseFieldDef('String', 'f')).to.throw(InvalidInput, /must be an object/);
      expect(() => parseFieldDef(null, 'f')).to.throw(InvalidInput);
      expect(() => parseFieldDef([], 'f')).to.throw(InvalidInput);
    });

    it('rejects unknown keys and names them', () => {
      expect(() => parseFieldDef({ field_type: 'String', maxLength: 3 }, 'f')).to.throw(
        InvalidInput,
        /unknown key 'maxLength'/,
      );
      expect(() => parseFieldDef({ field_type: 'String', type: 'String' }, 'f')).to.throw(
        InvalidInput,
        /unknown key 'type'/,
      );
    });

    it('tolerates the keys Rust and TypeScript clients always send, with nulls', () => {
      const def = parseFieldDef(
        {
          field_type: 'String',
          required: false,
          unique: true,
          default: null,
          enums: [],
          min: null,
          max: null,
          regex: null,
          index: null,
          description: 'a comment',
        },
        'f',
      );
      expect(def).to.deep.equal({ field_type: 'String', required: false, unique: true });
    });

    it('accepts the GET /api/schemas output for a type with no options', () => {
      const def = parseFieldDef(
        {
          field_type: 'Boolean',
          default: null,
          unique: false,
          required: true,
          enums: [],
          max: null,
          min: null,
          regex: null,
        },
        'f',
      );
      expect(def).to.deep.equal({ field_type: 'Boolean', required: true, unique: false });
    });

    it('rejects non-boolean required and unique', () => {
      expect(() => parseFieldDef({ field_type: 'String', required: 'yes' }, 'f')).to.throw(
        InvalidInput,
        /required must be true or false/,
      );
      expect(() => parseFieldDef({ field_type: 'String', unique: 1 }, 'f')).to.throw(
        InvalidInput,
        /unique must be true or false/,
      );
    });
  });

  describe('options per type', () => {
    for (const option of ['min', 'max', 'regex', 'enums', 'format'] as const) {
      for (const type of TYPE_NAMES) {
        const allowed = OPTIONS_BY_TYPE[type].includes(option);
        const sample = SAMPLE_OPTION[option][type] ?? SAMPLE_OPTION[option].String;
        it(`${allowed ? 'accepts' : 'rejects'} ${option} for ${type}`, () => {
          const parse = (): unknown => parseFieldDef({ field_type: type, [option]: sample }, 'f');
          if (allowed) expect(parse()).to.have.property(option);
          else
            expect(parse).to.throw(
              InvalidInput,
              new RegExp(`option '${option}' is not allowed for field_type ${type}`),
            );
        });
      }
    }

    it('matches the options table of product.md', () => {
      expect(OPTIONS_BY_TYPE).to.deep.include({
        String: ['min', 'max', 'regex', 'enums'],
        Integer: ['min', 'max', 'enums'],
        Boolean: [],
        Array: ['min', 'max'],
        DateTime: ['min', 'max'],
        Decimal: ['min', 'max'],
        UUID: ['format'],
        Vector: ['min', 'max'],
        Set: ['min', 'max'],
        Duration: [],
      });
    });
  });

  describe('min and max', () => {
    it('keeps numeric bounds as numbers', () => {
      expect(parseFieldDef({ field_type: 'Integer', min: 18, max: 65 }, 'age')).to.include({ min: 18, max: 65 });
      expect(parseFieldDef({ field_type: 'Float', min: -0.5 }, 'f')).to.include({ min: -0.5 });
    });

    it('requires non-negative integer lengths for String, Array, Vector and Set', () => {
      for (const type of ['String', 'Array', 'Vector', 'Set']) {
        expect(parseFieldDef({ field_type: type, min: 0, max: 3 }, 'f')).to.include({ min: 0, max: 3 });
        expect(() => parseFieldDef({ field_type: type, min: -1 }, 'f')).to.throw(
          InvalidInput,
          /non-negative integer length/,
        );
        expect(() => parseFieldDef({ field_type: type, max: 2.5 }, 'f')).to.throw(
          InvalidInput,
          /non-negative integer length/,
        );
      }
    });

    it('parses DateTime bounds as RFC 3339 instants', () => {
      const def = parseFieldDef({ field_type: 'DateTime', min: '2024-01-01T02:00:00+02:00' }, 'at');
      expect(def.min).to.deep.equal(new Tagged('DateTime', '2024-01-01T00:00:00+00:00'));
      expect(() => parseFieldDef({ field_type: 'DateTime', max: '2024-01-01' }, 'at')).to.throw(
        InvalidInput,
        /RFC 3339/,
      );
      expect(() => parseFieldDef({ field_type: 'DateTime', max: 1700000000 }, 'at')).to.throw(InvalidInput, /RFC 3339/);
    });

    it('accepts numbers and decimal strings as Decimal bounds', () => {
      expect(parseFieldDef({ field_type: 'Decimal', min: 0 }, 'p').min).to.equal(0);
      expect(parseFieldDef({ field_type: 'Decimal', max: '1000.50' }, 'p').max).to.deep.equal(
        new Tagged('Decimal', '1000.50'),
      );
      expect(() => parseFieldDef({ field_type: 'Decimal', max: 'lots' }, 'p')).to.throw(InvalidInput, /decimal string/);
    });

    it('accepts bounds sent as typed wrappers', () => {
      expect(parseFieldDef({ field_type: 'Integer', min: { type: 'Integer', value: 3 } }, 'f').min).to.equal(3);
      expect(
        parseFieldDef({ field_type: 'DateTime', min: { type: 'DateTime', value: '2024-01-01T00:00:00Z' } }, 'f').min,
      ).to.deep.equal(new Tagged('DateTime', '2024-01-01T00:00:00+00:00'));
    });

    it('rejects non-numeric bounds for numeric types', () => {
      expect(() => parseFieldDef({ field_type: 'Integer', min: '3' }, 'f')).to.throw(
        InvalidInput,
        /must be a number for Integer/,
      );
      expect(() => parseFieldDef({ field_type: 'Number', max: true }, 'f')).to.throw(InvalidInput);
    });

    it('rejects min greater than max', () => {
      expect(() => parseFieldDef({ field_type: 'Integer', min: 10, max: 5 }, 'f')).to.throw(
        InvalidInput,
        /min 10 is greater than max 5/,
      );
      expect(() => parseFieldDef({ field_type: 'String', min: 4, max: 3 }, 'f')).to.throw(
        InvalidInput,
        /greater than max/,
      );
      expect(() =>
        parseFieldDef({ field_type: 'DateTime', min: '2025-01-01T00:00:00Z', max: '2024-01-01T00:00:00Z' }, 'f'),
      ).to.throw(InvalidInput, /greater than max/);
      expect(parseFieldDef({ field_type: 'Integer', min: 5, max: 5 }, 'f')).to.include({ min: 5, max: 5 });
    });
  });

  describe('regex', () => {
    it('keeps a valid pattern as its source', () => {
      expect(parseFieldDef({ field_type: 'String', regex: '^\\d{3}$' }, 'f').regex).to.equal('^\\d{3}$');
    });

    it('rejects a pattern that does not compile, naming the field and quoting the fault', () => {
      expect(() => parseFieldDef({ field_type: 'String', regex: '([a-z' }, 'code')).to.throw(
        InvalidInput,
        "Field 'code': invalid regex: unterminated character class",
      );
    });

    it('rejects a pattern the linear-time engine cannot run, saying why', () => {
      expect(() => parseFieldDef({ field_type: 'String', regex: '(a)\\1' }, 'code')).to.throw(
        InvalidInput,
        "Field 'code': invalid regex: backreferences such as \\1 are not supported",
      );
    });

    it('rejects a non-string pattern', () => {
      expect(() => parseFieldDef({ field_type: 'String', regex: 5 }, 'f')).to.throw(
        InvalidInput,
        /regex must be a string/,
      );
    });
  });

  describe('format', () => {
    it('keeps format "rfc4122" on a UUID field', () => {
      expect(parseFieldDef({ field_type: 'UUID', format: 'rfc4122' }, 'ref')).to.include({ format: 'rfc4122' });
      expect(parseFieldDef({ field_type: 'UUID', format: null }, 'ref')).to.not.have.property('format');
    });

    it('rejects any other format, naming the one it takes', () => {
      for (const format of ['RFC4122', 'uuid', 'rfc9562', true, 4122]) {
        expect(() => parseFieldDef({ field_type: 'UUID', format }, 'ref')).to.throw(
          InvalidInput,
          /Field 'ref': format must be "rfc4122"/,
        );
      }
    });

    it('checks a default against the strict format', () => {
      expect(() =>
        parseFieldDef(
          { field_type: 'UUID', format: 'rfc4122', default: 'b1ffcd00-0d1c-5fg9-8a1a-000000000000' },
          'ref',
        ),
      ).to.throw(InvalidInput, /must be an RFC 4122 UUID/);
      const ok = parseFieldDef(
        { field_type: 'UUID', format: 'rfc4122', default: '123e4567-e89b-12d3-a456-426614174000' },
        'ref',
      );
      expect(ok.default).to.deep.equal(new Tagged('UUID', '123e4567-e89b-12d3-a456-426614174000'));
    });
  });

  describe('enums', () => {
    it('keeps the allowed values in their stored form', () => {
      expect(parseFieldDef({ field_type: 'String', enums: ['red', 'green'] }, 'f').enums).to.deep.equal([
        'red',
        'green',
      ]);
      expect(parseFieldDef({ field_type: 'Float', enums: [1.5, 2] }, 'f').enums).to.deep.equal([
        1.5,
        new Tagged('Float', 2),
      ]);
      expect(parseFieldDef({ field_type: 'Number', enums: [1] }, 'f').enums).to.deep.equal([new Tagged('Number', 1)]);
    });

    it('keeps RFC 3339 strings as strings in String enums', () => {
      expect(parseFieldDef({ field_type: 'String', enums: ['2024-01-01T00:00:00Z'] }, 'f').enums).to.deep.equal([
        '2024-01-01T00:00:00Z',
      ]);
    });

    it('treats an empty array as no restriction', () => {
      expect(parseFieldDef({ field_type: 'String', enums: [] }, 'f')).to.not.have.property('enums');
    });

    it('rejects enums that are not an array', () => {
      expect(() => parseFieldDef({ field_type: 'String', enums: 'red' }, 'f')).to.throw(
        InvalidInput,
        /enums must be an array/,
      );
    });

    it('rejects values of the wrong type', () => {
      expect(() => parseFieldDef({ field_type: 'String', enums: ['a', 1] }, 'f')).to.throw(
        InvalidInput,
        /enums\[1\] is not a String value/,
      );
      expect(() => parseFieldDef({ field_type: 'Integer', enums: [1, 2.5] }, 'f')).to.throw(
        InvalidInput,
        /enums\[1\] is not a Integer/,
      );
      expect(() => parseFieldDef({ field_type: 'Float', enums: ['1'] }, 'f')).to.throw(InvalidInput);
      expect(() => parseFieldDef({ field_type: 'Integer', enums: [null] }, 'f')).to.throw(InvalidInput);
    });
  });

  describe('default', () => {
    it('stores the default converted to the declared type', () => {
      expect(parseFieldDef({ field_type: 'String', default: 'n/a' }, 'f').default).to.equal('n/a');
      expect(parseFieldDef({ field_type: 'Float', default: 1 }, 'f').default).to.deep.equal(new Tagged('Float', 1));
      expect(parseFieldDef({ field_type: 'Vector', default: [0, 0] }, 'f').default).to.deep.equal(
        new Tagged('Vector', [0, 0]),
      );
      expect(parseFieldDef({ field_type: 'Set', default: ['a', 'a'] }, 'f').default).to.deep.equal(
        new Tagged('Set', ['a']),
      );
      expect(parseFieldDef({ field_type: 'DateTime', default: '2024-01-01T00:00:00Z' }, 'f').default).to.deep.equal(
        new Tagged('DateTime', '2024-01-01T00:00:00+00:00'),
      );
      expect(parseFieldDef({ field_type: 'Boolean', default: false }, 'f').default).to.equal(false);
    });

    it('keeps an RFC 3339 default of a String field as a string', () => {
      expect(parseFieldDef({ field_type: 'String', default: '2024-01-01T00:00:00Z' }, 'f').default).to.equal(
        '2024-01-01T00:00:00Z',
      );
    });

    it('stores a numeric Decimal default as a Decimal', () => {
      expect(parseFieldDef({ field_type: 'Decimal', default: 5 }, 'p').default).to.deep.equal(
        new Tagged('Decimal', '5'),
      );
    });

    it('accepts a default sent as a typed wrapper', () => {
      expect(
        parseFieldDef({ field_type: 'Decimal', default: { type: 'Decimal', value: '9.99' } }, 'f').default,
      ).to.deep.equal(new Tagged('Decimal', '9.99'));
    });

    it('rejects a default of the wrong type', () => {
      const err = errorOf(() => parseFieldDef({ field_type: 'Integer', default: 'ten' }, 'n'));
      expect(err.message).to.match(
        /Field 'n': default 'ten' does not satisfy the definition: Field 'n' must be of type Integer/,
      );
      expect(err.details).to.have.length(1);
    });

    it("rejects a default that breaks the field's own constraints", () => {
      expect(() => parseFieldDef({ field_type: 'Integer', min: 18, default: 12 }, 'age')).to.throw(
        InvalidInput,
        /must be >= 18 \(got 12\)/,
      );
      expect(() => parseFieldDef({ field_type: 'String', enums: ['a'], default: 'b' }, 'f')).to.throw(
        InvalidInput,
        /must be one of/,
      );
      expect(() => parseFieldDef({ field_type: 'String', regex: '^x', max: 2, default: 'abc' }, 'f')).to.throw(
        InvalidInput,
        /at most 2 characters long.*; .*pattern '\^x'/,
      );
    });
  });

  describe('index', () => {
    it('parses the index config of the field', () => {
      expect(
        parseFieldDef({ field_type: 'Vector', index: { type: 'vector', metric: 'cosine' } }, 'e').index,
      ).to.deep.equal({ type: 'vector', metric: 'cosine' });
      expect(parseFieldDef({ field_type: 'Integer', index: { type: 'btree' } }, 'n').index).to.deep.equal({
        type: 'btree',
      });
    });

    it('allows text indexes only on String and vector indexes only on Vector or Array', () => {
      expect(() => parseFieldDef({ field_type: 'Integer', index: { type: 'text' } }, 'n')).to.throw(
        InvalidInput,
        /text index needs field_type String/,
      );
      expect(() => parseFieldDef({ field_type: 'String', index: { type: 'vector' } }, 's')).to.throw(
        InvalidInput,
        /vector index needs/,
      );
      expect(parseFieldDef({ field_type: 'Array', index: { type: 'vector' } }, 'a').index).to.deep.equal({
        type: 'vector',
      });
    });
  });
});
