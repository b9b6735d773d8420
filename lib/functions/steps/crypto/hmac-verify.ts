/**
 * HmacVerify: true under `output_field` when `provided_mac` is the HMAC of
 * `input` with `secret` (same members as HmacSign), compared in constant
 * time. A MAC that is not valid hex or base64 is simply false.
 */
import type { Template } from '../../template.js';
import { textInput, writeEach } from '../field-output.js';
import { step } from '../step.js';
import { decodeMac, hmacMembers, hmacOf, macEquals, type HmacMembers } from './hmac.js';

export const hmacVerify = step<HmacMembers & { readonly providedMac: Template }>({
  type: 'HmacVerify',
  secretMembers: ['secret'],
  access: 'none',
  compile: (m) => ({ ...hmacMembers(m), providedMac: m.template('provided_mac') }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const provided = decodeMac(textInput(x, cfg.providedMac, row, 'provided_mac'), cfg.encoding);
    return provided !== undefined && macEquals(hmacOf(cfg, x, row), provided);
  }),
});
