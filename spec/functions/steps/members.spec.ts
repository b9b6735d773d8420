import { expect } from 'chai';
import { ManualClock } from '../../../lib/engine/index.js';
import { functionEnv } from '../../../lib/functions/index.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

describe('functions: crypto steps', () => {
  let h: FunctionHarness;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 0, 1));
    h = await FunctionHarness.open({ clock });
  });
  afterEach(async () => {
    await h.close();
  });

  const one = async (step: Record<string, unknown>, params: Record<string, unknown> = {}) =>
    (await h.run([step], params)).records[0]!.out;

  describe('{{env.NAME}} secrets', () => {
    const SECRET = 'env-secret-value-0123456789';
    beforeEach(() => {
      h.env = functionEnv({
        startup: ['HMAC_KEY'],
        current: () => h.db.settings().function_env_allowlist,
        variables: { HMAC_KEY: SECRET, DATA_KEY: '11'.repeat(32), EMPTY: '' },
      });
    });

    it('reads an allow-listed variable (startup list or setting)', async () => {
      const expected = (await one({ type: 'HmacSign', input: 'x', secret: SECRET, output_field: 'out' })) as string;
      expect(await one({ type: 'HmacSign', input: 'x', secret: '{{env.HMAC_KEY}}', output_field: 'out' })).to.equal(
        expected,
      );
      await h.db.updateSettings({ function_env_allowlist: ['DATA_KEY'] });
      const r = await h.run([
        { type: 'AesEncrypt', plaintext: 'p', key: '{{env.DATA_KEY}}', output_field: 'box' },
        { type: 'AesDecrypt', ciphertext_field: 'box', key: '{{env.DATA_KEY}}', output_field: 'plain' },
      ]);
      expect(r.records[0]!.plain).to.equal('p');
    });

    it('refuses a name off the allow-list at save, naming it and never a value', () => {
      expect(() =>
        h.define({
          label: 'x',
          functions: [{ type: 'HmacSign', input: 'x', secret: '{{env.DATA_KEY}}', output_field: 'o' }],
        }),
      ).to.throw(
        "functions[0].secret: environment variable 'DATA_KEY' is not on the allow-list (function_env_allowlist or " +
          'EDDYDB_FUNCTION_ENV)',
      );
      expect(() =>
        h.define({ label: 'y', functions: [{ type: 'Slugify', input: 'a {{env.PATH}} b', output_field: 'o' }] }),
      ).to.throw("environment variable 'PATH' is not on the allow-list");
    });

    it('fails closed at run time when the name left the allow-list or is unset', async () => {
      await h.db.updateSettings({ function_env_allowlist: ['DATA_KEY', 'EMPTY'] });
      h.define({
        label: 'uses_data_key',
        functions: [{ type: 'HexEncode', input: '{{env.DATA_KEY}}', output_field: 'o' }],
      });
      h.define({ label: 'uses_empty', functions: [{ type: 'HexEncode', input: '{{env.EMPTY}}', output_field: 'o' }] });
      await h.db.updateSettings({ function_env_allowlist: ['EMPTY'] });
      const gone = await rejection(h.call('uses_data_key'));
      expect(gone.message).to.equal(
        "Environment variable 'DATA_KEY' is not on the allow-list (function_env_allowlist or EDDYDB_FUNCTION_ENV)",
      );
      const unset = await rejection(h.call('uses_empty'));
      expect(unset.message).to.equal("Environment variable 'EMPTY' is not set");
    });

    it('reads nothing when no environment is configured', async () => {
      h.env = undefined;
      const err = await rejection(h.run([{ type: 'HexEncode', input: '{{env.HMAC_KEY}}', output_field: 'o' }]));
      expect(err.message).to.match(/'HMAC_KEY' is not on the allow-list/);
    });
  });
});
