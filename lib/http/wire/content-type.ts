/**
 * The request body's format, read from its `Content-Type` header. The rules
 * (docs/http-api.md, "Content types"):
 *   - missing, empty or blank: JSON (clients often omit the header);
 *   - one media type: MessagePack for application/msgpack (and its x- and
 *     vnd. spellings), JSON for application/json, any `+json` type and
 *     text/plain; parameters such as `charset` are ignored;
 *   - anything else, including a list (`application/json, application/msgpack`)
 *     or a value that is not `type/subtype`: 415 naming the value.
 * Both transports reach this through the Dispatcher, so they agree; fastify
 * is kept from judging the header itself (transport/fastify.ts).
 */
import { UnsupportedMedia } from '../../errors.js';

export type BodyFormat = 'json' | 'msgpack';

const MSGPACK_TYPES = new Set(['application/msgpack', 'application/x-msgpack', 'application/vnd.msgpack']);
/** RFC 9110 token characters, on both sides of the slash. */
const MEDIA_TYPE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+$/;
const HINT = 'use application/json or application/msgpack';
/** How much of a header value an error message repeats. */
const SHOWN_CHARS = 64;

/**
 * The format a body sent with this `Content-Type` is decoded as.
 * Throws UnsupportedMedia (415) for a list, an unparsable value or a type we
 * cannot decode; the message names the value, escaped and cut to 64 characters.
 */
export function bodyFormat(contentType: string | undefined): BodyFormat {
  if (contentType === undefined || contentType === 'application/json') return 'json';
  if (contentType === 'application/msgpack') return 'msgpack';
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (type === '') {
    if (contentType.trim() === '') return 'json';
    throw new UnsupportedMedia(`Malformed Content-Type ${showHeader(contentType)}: no media type; ${HINT}`);
  }
  if (type.includes(','))
    throw new UnsupportedMedia(`Content-Type must be one media type, got ${showHeader(contentType)}; ${HINT}`);
  if (!MEDIA_TYPE.test(type))
    throw new UnsupportedMedia(`Malformed Content-Type ${showHeader(contentType)}: expected type/subtype; ${HINT}`);
  if (MSGPACK_TYPES.has(type)) return 'msgpack';
  if (type === 'application/json' || type.endsWith('+json') || type === 'text/plain') return 'json';
  throw new UnsupportedMedia(`Unsupported Content-Type ${showHeader(type)}; ${HINT}`);
}

/** A header value as an error message shows it: quoted, non-printable bytes escaped, length bounded. */
export function showHeader(value: string): string {
  const cut = value.length > SHOWN_CHARS ? value.slice(0, SHOWN_CHARS) + '...' : value;
  return `'${cut.replace(/[^\x20-\x7e]|['\\]/g, escapeChar)}'`;
}

function escapeChar(char: string): string {
  if (char === "'" || char === '\\') return '\\' + char;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
