/**
 * HmacSign: the HMAC of `input` (UTF-8 text or binary data) with `secret`
 * (UTF-8), `algorithm` sha256 (default), sha384 or sha512, encoded `hex`
 * (default) or `base64`, under `output_field`.
 */
import { writeEach } from '../field-output.js';
import { step } from '../step.js';
import { hmacMembers, hmacOf, type HmacMembers } from './hmac.js';

export const hmacSign = step<HmacMembers>({
  type: 'HmacSign',
  secretMembers: ['secret'],
  access: 'none',
  compile: hmacMembers,
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => hmacOf(cfg, x, row).toString(cfg.encoding)),
});
