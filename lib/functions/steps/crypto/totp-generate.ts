/**
 * TotpGenerate: the current TOTP code (RFC 6238) of `secret` (base32) under
 * `output_field`, as a string of `digits` (6 default, or 8) digits;
 * `period` seconds (default 30), `algorithm` sha1 (default), sha256 or
 * sha512. The time is the engine's clock.
 */
import type { Template } from '../../template.js';
import { writeEach } from '../field-output.js';
import { step } from '../step.js';
import { keyMaterial, secretText } from './secret-member.js';
import { base32Secret, hotp, timeStep, totpParams, type TotpParams } from './totp.js';

interface TotpGenerateConfig {
  readonly secret: Template;
  readonly output: readonly string[];
  readonly params: TotpParams;
}

export const totpGenerate = step<TotpGenerateConfig>({
  type: 'TotpGenerate',
  secretMembers: ['secret'],
  access: 'none',
  compile: (m) => ({ secret: keyMaterial(m, 'secret'), output: m.fieldPath('output_field'), params: totpParams(m) }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const key = base32Secret(secretText(x, cfg.secret, row, 'secret'));
    return hotp(key, timeStep(x.now(), cfg.params.period), cfg.params);
  }),
});
