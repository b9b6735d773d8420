/**
 * The encoding steps: Base64Encode, Base64Decode, HexEncode, HexDecode and
 * Slugify, pure computations on the working records (so transactional
 * functions may hold them). Each writes under `output_field` per working
 * record (working-records.ts `writeEach`). Decoders fail closed: input that
 * is not strictly in the encoding, or bytes that are not UTF-8, fail the
 * step.
 *
 * Base64 is strict RFC 4648: the standard alphabet (section 4) or the URL
 * and file-name safe one (section 5). A character outside the alphabet,
 * whitespace, a wrong length or padding, or non-zero unused bits is an
 * error (node's decoder would skip or guess). Padding is optional on input;
 * the standard encoding pads, the URL-safe one does not.
 */
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import { step } from '../step.js';
import { bytesInput, textInput, utf8OrNull, writeEach } from '../working-records.js';

const STANDARD_BASE64 = /^[A-Za-z0-9+/]*$/;
const URL_SAFE_BASE64 = /^[A-Za-z0-9_-]*$/;
const HEX = /^(?:[0-9A-Fa-f]{2})*$/;

export function encodeBase64(bytes: Uint8Array, urlSafe: boolean): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(urlSafe ? 'base64url' : 'base64');
}

/** The bytes of `text`, or InvalidInput naming `what` (never echoing the text). */
export function decodeBase64(text: string, urlSafe: boolean, what: string): Buffer {
  const body = text.endsWith('==') ? text.slice(0, -2) : text.endsWith('=') ? text.slice(0, -1) : text;
  const padded = body.length !== text.length;
  const invalid = (why: string) =>
    new InvalidInput(`'${what}' is not valid ${urlSafe ? 'URL-safe ' : ''}base64: ${why}`);
  if (!(urlSafe ? URL_SAFE_BASE64 : STANDARD_BASE64).test(body)) throw invalid('characters outside the alphabet');
  if (body.length % 4 === 1 || (padded && (body.length + (text.length - body.length)) % 4 !== 0)) {
    throw invalid('wrong length or padding');
  }
  const bytes = Buffer.from(body, urlSafe ? 'base64url' : 'base64');
  // Non-canonical input (unused bits set) would decode to the same bytes as another text.
  const canonical = urlSafe ? body : body.replace(/\+/g, '-').replace(/\//g, '_');
  if (bytes.toString('base64url').replace(/=+$/, '') !== canonical) throw invalid('non-zero unused bits');
  return bytes;
}

/** True when `text` is pairs of hex digits, either case. */
export function isHex(text: string): boolean {
  return HEX.test(text);
}

interface CodecConfig {
  readonly input: Template;
  readonly output: readonly string[];
}

/** Base64Encode: `input` (text as UTF-8, or binary data) as base64, standard or `url_safe` (unpadded). */
export const base64Encode = step<CodecConfig & { readonly urlSafe: boolean }>({
  type: 'Base64Encode',
  access: 'none',
  compile: (members) => ({
    input: members.template('input'),
    output: members.fieldPath('output_field'),
    urlSafe: members.optionalBoolean('url_safe') ?? false,
  }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => encodeBase64(bytesInput(run, config.input, row, 'input'), config.urlSafe)),
});

/** Base64Decode: `input` decoded (standard alphabet, or `url_safe`) to UTF-8 text. */
export const base64Decode = step<CodecConfig & { readonly urlSafe: boolean }>({
  type: 'Base64Decode',
  access: 'none',
  compile: (members) => ({
    input: members.template('input'),
    output: members.fieldPath('output_field'),
    urlSafe: members.optionalBoolean('url_safe') ?? false,
  }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => {
      const text = utf8OrNull(decodeBase64(textInput(run, config.input, row, 'input'), config.urlSafe, 'input'));
      if (text === null) throw new InvalidInput("'input' decodes to bytes that are not UTF-8 text");
      return text;
    }),
});

/** HexEncode: `input` (text as UTF-8, or binary data) as lowercase hex. */
export const hexEncode = step<CodecConfig>({
  type: 'HexEncode',
  access: 'none',
  compile: (members) => ({ input: members.template('input'), output: members.fieldPath('output_field') }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => bytesInput(run, config.input, row, 'input').toString('hex')),
});

/**
 * HexDecode: `input` (pairs of hex digits, either case) decoded to UTF-8 text; node's decoder would stop silently at a
 * bad pair.
 */
export const hexDecode = step<CodecConfig>({
  type: 'HexDecode',
  access: 'none',
  compile: (members) => ({ input: members.template('input'), output: members.fieldPath('output_field') }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => {
      const input = textInput(run, config.input, row, 'input');
      if (!isHex(input))
        throw new InvalidInput("'input' is not valid hex: an even number of the digits 0-9 and a-f expected");
      const text = utf8OrNull(Buffer.from(input, 'hex'));
      if (text === null) throw new InvalidInput("'input' decodes to bytes that are not UTF-8 text");
      return text;
    }),
});

const SPELLED: Readonly<Record<string, string>> = Object.freeze({
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ħ: 'h',
  ı: 'i',
  ŧ: 't',
});

/**
 * A URL slug: accents dropped (Unicode NFKD, combining marks removed, a few
 * letters spelled out: ß ss, æ ae, ø o...), lowercase ASCII letters and
 * digits kept, every other run of characters one `-`, no `-` at either end.
 * Text with no Latin letters or digits gives an empty slug.
 */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøđðłþħıŧ]/g, (letter) => SPELLED[letter]!)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Slugify: `input` as a URL slug (`slugify`). */
export const slugifyStep = step<CodecConfig>({
  type: 'Slugify',
  access: 'none',
  compile: (members) => ({ input: members.template('input'), output: members.fieldPath('output_field') }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => slugify(textInput(run, config.input, row, 'input'))),
});
