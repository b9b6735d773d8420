/**
 * Request ids (the X-Request-Id header, log lines, error bodies). A request
 * that brings its own `X-Request-Id` (a proxy's, a client's) keeps it when
 * it is safe to echo and to log: at most 128 characters, letters, digits
 * and `-_.:/+=@`; anything else gets a new one, as does a request without.
 * New ids are shaped like a UUID v4, unique within the process and, through
 * a random part drawn at start, across processes. A counter fills the last
 * 12 hex digits, which costs a tenth of a fresh `randomUUID()` per request;
 * the ids only correlate a request with its log lines and are no secret.
 */
import { randomUUID } from 'node:crypto';
import { rawHeader } from './request-headers.js';

/** The longest incoming X-Request-Id kept; a longer one is replaced. */
export const MAX_REQUEST_ID_CHARS = 128;
const SAFE_ID = /^[A-Za-z0-9._:/+=@-]+$/;

/** `xxxxxxxx-xxxx-4xxx-yxxx-`: the random part, 74 random bits. */
const PREFIX = randomUUID().slice(0, 24);
const COUNTER_SPAN = 2 ** 48;
/** Two hex digits for each value of the counter's low byte. */
const LOW_BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
let counter = 0;
/**
 * PREFIX and the counter's upper ten hex digits, made again once every 256 ids: a number's toString(16) costs
 * more than the rest of an id.
 */
let upperText = '';
let upper = -1;

export function newRequestId(): string {
  counter = (counter + 1) % COUNTER_SPAN;
  const high = Math.floor(counter / 256);
  if (high !== upper) {
    upper = high;
    upperText = PREFIX + high.toString(16).padStart(10, '0');
  }
  return upperText + LOW_BYTE_HEX[counter & 0xff]!;
}

/** `given` when it is an id safe to keep (see the header), else undefined. */
export function acceptedRequestId(given: string | undefined): string | undefined {
  return given !== undefined && given.length <= MAX_REQUEST_ID_CHARS && SAFE_ID.test(given) ? given : undefined;
}

/** Where a request's headers are: node's raw name/value list when the transport has it, else the headers object. */
export interface RequestHeaderSource {
  readonly rawHeaders?: readonly string[];
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** The id of a request: its own first X-Request-Id when safe to keep, else a new one. */
export function requestIdOf(req: RequestHeaderSource): string {
  let given: string | undefined;
  if (req.rawHeaders) given = rawHeader(req.rawHeaders, 'x-request-id');
  else {
    const header = req.headers?.['x-request-id'];
    given = Array.isArray(header) ? header[0] : header;
  }
  return acceptedRequestId(given) ?? newRequestId();
}
