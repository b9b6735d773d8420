/**
 * Strict base64 (RFC 4648): the standard alphabet (section 4) or the URL and
 * file-name safe one (section 5). Decoding fails closed: a character outside
 * the alphabet, whitespace, a wrong length or padding, or non-zero unused
 * bits is an error (node's decoder would skip or guess). Padding is
 * optional on input; the standard encoding pads, the URL-safe one does not.
 */
import { InvalidInput } from '../../../errors.js';

const STANDARD = /^[A-Za-z0-9+/]*$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

export function encodeBase64(bytes: Uint8Array, urlSafe: boolean): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(urlSafe ? 'base64url' : 'base64');
}

/** The bytes of `text`, or InvalidInput naming `what` (never echoing the text). */
export function decodeBase64(text: string, urlSafe: boolean, what: string): Buffer {
  const body = text.endsWith('==') ? text.slice(0, -2) : text.endsWith('=') ? text.slice(0, -1) : text;
  const padded = body.length !== text.length;
  if (!(urlSafe ? URL_SAFE : STANDARD).test(body)) {
    throw new InvalidInput(`'${what}' is not valid ${urlSafe ? 'URL-safe ' : ''}base64: characters outside the alphabet`);
  }
  if (body.length % 4 === 1 || (padded && (body.length + (text.length - body.length)) % 4 !== 0)) {
    throw new InvalidInput(`'${what}' is not valid ${urlSafe ? 'URL-safe ' : ''}base64: wrong length or padding`);
  }
  const bytes = Buffer.from(body, urlSafe ? 'base64url' : 'base64');
  // Non-canonical input (unused bits set) would decode to the same bytes as another text.
  if (bytes.toString('base64url').replace(/=+$/, '') !== (urlSafe ? body : body.replace(/\+/g, '-').replace(/\//g, '_'))) {
    throw new InvalidInput(`'${what}' is not valid ${urlSafe ? 'URL-safe ' : ''}base64: non-zero unused bits`);
  }
  return bytes;
}
