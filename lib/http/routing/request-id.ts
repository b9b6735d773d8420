/**
 * Request ids (the X-Request-Id header, log lines, error bodies): shaped
 * like a UUID v4, unique within the process and, through a random part
 * drawn at start, across processes. A counter fills the last 12 hex digits,
 * which costs a tenth of a fresh `randomUUID()` per request; the ids only
 * correlate a request with its log lines and are no secret.
 */
import { randomUUID } from 'node:crypto';

/** `xxxxxxxx-xxxx-4xxx-yxxx-`: the random part, 74 random bits. */
const PREFIX = randomUUID().slice(0, 24);
const COUNTER_SPAN = 2 ** 48;
let counter = 0;

export function newRequestId(): string {
  counter = (counter + 1) % COUNTER_SPAN;
  return PREFIX + counter.toString(16).padStart(12, '0');
}
