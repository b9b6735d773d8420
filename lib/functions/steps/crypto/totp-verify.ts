/**
 * TotpVerify: true under `output_field` when `code` is the TOTP of `secret`
 * for the current time step or one within `skew` steps (default 1, at most
 * 10) either side; same `digits`, `period`, `algorithm` as TotpGenerate.
 * A code sent as a number is read with its leading zeros restored; anything
 * that is not `digits` digits is simply false.
 */
import type { Template } from '../../template.js';
import { writeEach } from '../field-output.js';
import { step } from '../step.js';
import { keyMaterial, secretText } from './secret-member.js';
import { base32Secret, totpParams, verifyTotp, type TotpParams } from './totp.js';
import { isTypedWrapper } from '../../../engine/index.js';

const MAX_SKEW = 10;

interface TotpVerifyConfig {
  readonly code: Template;
  readonly secret: Template;
  readonly output: readonly string[];
  readonly params: TotpParams;
  readonly skew: number;
}

function codeText(v: unknown, digits: number): string {
  const raw = isTypedWrapper(v) ? v.value : v;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < 10 ** digits) return String(raw).padStart(digits, '0');
  return typeof raw === 'string' ? raw.trim() : '';
}

export const totpVerify = step<TotpVerifyConfig>({
  type: 'TotpVerify',
  secretMembers: ['secret'],
  access: 'none',
  compile: (m) => ({
    code: m.template('code'),
    secret: keyMaterial(m, 'secret'),
    output: m.fieldPath('output_field'),
    params: totpParams(m),
    skew: m.optionalInteger('skew', 0, MAX_SKEW) ?? 1,
  }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const key = base32Secret(secretText(x, cfg.secret, row, 'secret'));
    return verifyTotp(key, codeText(x.resolve(cfg.code, row), cfg.params.digits), x.now(), cfg.params, cfg.skew);
  }),
});
