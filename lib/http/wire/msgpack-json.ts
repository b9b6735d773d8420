/**
 * MessagePack request bodies rewritten as JSON text by the optional native
 * addon (lib/http/wire/msgpack-json.cc, built by `npm install` into
 * build/Release), so that JSON.parse builds the value.
 *
 * msgpackr builds each map by adding its keys one by one to `{}` (an object
 * plus a separate property array) and, with its native string reader, hands
 * out slices of one decoded text, which the body check then copies: slower
 * for a large batch body, and more for the collector. The rewrite and
 * JSON.parse make the objects at their final size with flat strings.
 *
 * The addon rewrites only what maps onto JSON exactly and answers undefined
 * for anything else (binary, extensions, a 64-bit int beyond ±(2^53 - 1),
 * NaN, a non-string key, 0xc1, more than 100 levels, invalid UTF-8, bytes cut
 * short or left over, 16 digits in a row): the caller then decodes the body
 * with msgpackr, with its refusals. It also declines a body whose text would
 * be longer than twice the body plus 64 bytes (strings of control characters,
 * each written as six bytes; long arrays of small ints or full-precision
 * floats), growing the text as it writes and stopping at that bound, so a
 * body never makes it hold more than about twice itself; msgpackr decodes
 * such a body to the same value. Without the addon (no compiler at install,
 * a packed copy without the build) every body goes to msgpackr.
 * spec/fuzz/codec-fuzz.ts fuzzes it against msgpackr under the sanitizers.
 */
import { loadAddon } from './native-addon.js';

type Rewrite = (body: Buffer) => string | undefined;

const addon = loadAddon<{ msgpackAsJson: Rewrite }>('eddydb_codec.node', ['msgpackAsJson']);
const rewrite = 'unavailable' in addon ? undefined : addon.msgpackAsJson;

/** Whether the addon is here (specs say so instead of failing without it). */
export const msgpackRewriteAvailable = rewrite !== undefined;

/**
 * JSON text of a MessagePack body, or undefined (no addon, the body holds
 * what JSON would not carry exactly, or its text would pass twice its size).
 * The text holds no number of 16 digits or more and escapes only control
 * characters, so JSON.parse alone reads it as the JSON path's exact parser
 * would. A body whose bytes spell `__proto__` must not be
 * given: JSON.parse would keep such a key as an own member instead of
 * refusing it (codec.ts sends those bodies to msgpackr, which refuses them).
 */
export function msgpackAsJson(body: Buffer): string | undefined {
  return rewrite?.(body);
}
