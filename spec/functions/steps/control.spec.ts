import { expect } from 'chai';
import { StepFailed } from '../../../lib/errors.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

const insert = (collection: string, record: Record<string, unknown>) => ({ type: 'Insert', collection, record });

describe('functions: control steps', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
  });
  afterEach(async () => {
    await h.close();
  });

  describe('If', () => {
    it('runs then_functions or else_functions by the condition over the working records', async () => {
      const steps = [
        insert('c', { n: 5 }),
        {
          type: 'If',
          condition: { type: 'FieldGreaterThan', value: { field: 'n', value: 3 } },
          then_functions: [insert('c', { branch: 'then' })],
          else_functions: [insert('c', { branch: 'else' })],
        },
      ];
      expect((await h.run(steps)).records[0]).to.include({ branch: 'then' });
      const none = await h.run([
        { type: 'If', condition: { type: 'HasRecords' }, then_functions: [insert('c', { x: 1 })] },
      ]);
      expect(none.records).to.deep.equal([]);
    });

    it('names the path of a bad condition or nested step at save', () => {
      expect(() =>
        h.define({ label: 'x', functions: [{ type: 'If', condition: { type: 'Maybe' }, then_functions: [] }] }),
      ).to.throw("functions[0].condition: unknown condition type 'Maybe'");
      expect(() =>
        h.define({
          label: 'y',
          functions: [{ type: 'If', condition: { type: 'HasRecords' }, then_functions: [{ type: 'Qurey' }] }],
        }),
      ).to.throw("functions[0].then_functions[0]: unknown step type 'Qurey'");
    });
  });

  describe('ForEach', () => {
    it('runs the body per record with its fields as placeholders shadowing the parameters', async () => {
      await h.db.session(undefined).insert('people', { name: 'ann' });
      await h.db.session(undefined).insert('people', { name: 'bo' });
      const result = await h.run(
        [
          { type: 'FindAll', collection: 'people' },
          { type: 'ForEach', functions: [insert('greetings', { text: 'hello {{name}} from {{sender}}' })] },
        ],
        { sender: 'eddy', name: 'shadowed' },
      );
      expect(result.records.map((r) => r.text).sort()).to.deep.equal(['hello ann from eddy', 'hello bo from eddy']);
      expect(h.records('greetings')).to.have.length(2);
    });
  });

  describe('Parallel', () => {
    it('merges the branches in order', async () => {
      const result = await h.run([
        { type: 'Parallel', functions: [insert('a', { n: 1 }), insert('b', { n: 2 })], wait_for_all: true },
      ]);
      expect(result.records.map((r) => r.n)).to.deep.equal([1, 2]);
    });

    it('fails on a failed branch unless wait_for_all is false', async () => {
      const branches = [insert('a', { n: 1 }), insert('.bad', { n: 2 })];
      expect(await rejection(h.run([{ type: 'Parallel', functions: branches }]))).to.be.instanceOf(StepFailed);
      const lenient = await h.run([{ type: 'Parallel', functions: branches, wait_for_all: false }]);
      expect(lenient.records.map((r) => r.n)).to.deep.equal([1]);
    });
  });

  describe('TryCatch', () => {
    it('runs catch_functions with the error message in output_error_field', async () => {
      const result = await h.run([
        {
          type: 'TryCatch',
          try_functions: [insert('.bad', {})],
          catch_functions: [insert('errors', { why: '{{failure}}' })],
          output_error_field: 'failure',
        },
      ]);
      expect(result.records[0]).to.include({ why: 'Invalid collection name' });
    });

    it('refuses a prototype key as output_error_field at save', () => {
      expect(() =>
        h.define({
          label: 'pp',
          functions: [{ type: 'TryCatch', try_functions: [], output_error_field: '__proto__' }],
        }),
      ).to.throw("functions[0].output_error_field: forbidden field name '__proto__'");
    });

    it('does not catch a passed call bound', async () => {
      h.bounds = { maxSteps: 5, maxRecords: 1000, maxMs: 10_000 };
      h.define({
        label: 'loop',
        functions: [
          { type: 'TryCatch', try_functions: [{ type: 'CallFunction', function_label: 'loop' }], catch_functions: [] },
        ],
      });
      const err = await rejection(h.call('loop'));
      expect(err.message).to.match(/exceeded 5 executed steps/);
    });
  });

  describe('Return', () => {
    it('ends the call with its fields and status code', async () => {
      const result = await h.run(
        [
          insert('c', { name: 'x' }),
          { type: 'Return', fields: { created: '{{name}}', n: '{{count}}' }, status_code: 201 },
          insert('never', {}),
        ],
        { count: 3 },
      );
      expect(result.returned).to.deep.equal({ fields: { created: 'x', n: 3 }, statusCode: 201 });
      expect(h.records('never')).to.deep.equal([]);
    });
  });

  describe('Sleep', () => {
    it('waits, and never past the call time limit', async () => {
      const started = Date.now();
      await h.run([{ type: 'Sleep', duration_ms: '{{ms}}' }], { ms: 30 });
      expect(Date.now() - started).to.be.at.least(25);
      h.bounds = { maxSteps: 100, maxRecords: 100, maxMs: 50 };
      const err = await rejection(h.run([{ type: 'Sleep', duration_ms: 60_000 }]));
      expect(err.message).to.match(/time limit of 50 ms/);
    });
  });

  describe('Validate', () => {
    const schema = {
      type: 'object',
      required: ['email'],
      properties: { email: { type: 'string', pattern: '^[^@]+@[^@]+$' } },
    };

    it('passes a valid value and fails an invalid one with the schema errors', async () => {
      h.define({
        label: 'v',
        parameters: { user: { required: true } },
        functions: [{ type: 'Validate', schema, data_field: 'user' }],
      });
      expect((await h.call('v', { user: { email: 'a@b' } })).records).to.deep.equal([]);
      const err = await rejection(h.call('v', { user: { email: 'nope' } }));
      expect(err).to.include({ type: 'Validate', message: 'Validation failed' });
      expect(err.details[0]).to.include({ path: '/email', keyword: 'pattern' });
    });

    it('runs on_error instead of failing when given', async () => {
      h.define({
        label: 'v2',
        parameters: { user: { required: true } },
        functions: [
          {
            type: 'Validate',
            schema,
            data_field: 'user',
            on_error: [{ type: 'Return', fields: { ok: false }, status_code: 422 }],
          },
        ],
      });
      expect((await h.call('v2', { user: {} })).returned).to.deep.equal({ fields: { ok: false }, statusCode: 422 });
    });

    it('refuses a bad schema or a pattern the linear engine cannot run, at save', () => {
      expect(() => h.define({ label: 'b1', functions: [{ type: 'Validate', schema: { type: 'nonsense' } }] })).to.throw(
        /^functions\[0\].schema: invalid JSON Schema/,
      );
      expect(() =>
        h.define({ label: 'b2', functions: [{ type: 'Validate', schema: { type: 'string', pattern: '(a)\\1' } }] }),
      ).to.throw(/functions\[0\].schema: invalid JSON Schema/);
    });
  });

  describe('CallFunction', () => {
    it('inherits the parameters without params and passes exactly params with them', async () => {
      h.define({
        label: 'child',
        parameters: { who: { required: true } },
        functions: [insert('calls', { who: '{{who}}' })],
      });
      h.define({
        label: 'parent',
        parameters: { who: { required: true } },
        functions: [{ type: 'CallFunction', function_label: 'child' }],
      });
      expect((await h.call('parent', { who: 'ann' })).records[0]).to.include({ who: 'ann' });
      h.define({
        label: 'parent2',
        functions: [{ type: 'CallFunction', function_label: 'child', params: { who: 'bo' } }],
      });
      expect((await h.call('parent2')).records[0]).to.include({ who: 'bo' });
    });

    it('stops recursion at max_function_call_depth', async () => {
      await h.db.updateSettings({ max_function_call_depth: 4 });
      h.define({ label: 'rec', functions: [insert('depth', {}), { type: 'CallFunction', function_label: 'rec' }] });
      const err = await rejection(h.call('rec'));
      expect(err).to.include({ type: 'CallFunction', message: 'Maximum function call depth (4) exceeded' });
      expect(h.records('depth')).to.have.length(4);
    });

    it('says which function is missing', async () => {
      const err = await rejection(h.run([{ type: 'CallFunction', function_label: 'ghost' }]));
      expect(err).to.include({ status: 404, message: "Function 'ghost' not found" });
    });
  });

  describe('savepoints', () => {
    const tx = { transaction_config: { enabled: true, auto_rollback: true } };

    it('rewinds staged writes to a savepoint and commits the rest', async () => {
      await h.run(
        [
          insert('s', { n: 1 }),
          { type: 'CreateSavepoint', name: 'sp' },
          insert('s', { n: 2 }),
          { type: 'RollbackToSavepoint', name: 'sp' },
          { type: 'ReleaseSavepoint', name: 'sp' },
          insert('s', { n: 3 }),
        ],
        {},
        tx,
      );
      expect(
        h
          .records('s')
          .map((r) => r.n)
          .sort(),
      ).to.deep.equal([1, 3]);
    });

    it('needs a transactional function, checked at save', () => {
      expect(() => h.define({ label: 'sp', functions: [{ type: 'CreateSavepoint', name: 'x' }] })).to.throw(
        /^functions\[0\]: savepoint steps need a transactional function/,
      );
    });
  });
});
