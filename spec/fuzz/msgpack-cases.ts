/**
 * Seeded MessagePack bodies for the differential fuzzing of the native
 * rewrite (lib/http/wire/msgpack-json.cc) against msgpackr: `randomBody` writes
 * bytes itself, so every type and every header width appears (fixstr to
 * str32 for the same text, array32 of two members, extensions, 0xc1,
 * non-string keys, nesting past the depth limit, long strings full of
 * escapes and digit runs, invalid UTF-8); `mutateBody` flips bits, cuts,
 * splices and plants huge lengths. `checkBody` is the oracle: a rewritten
 * body must be one msgpackr decodes to the same value, which the JSON path's
 * exact parser reads from the text too, with text no longer than twice the
 * body plus 64 bytes; a declined one goes to msgpackr, so it only must not
 * crash (what the sanitizer build of spec/fuzz/codec-fuzz.ts watches).
 * Used by spec/http/wire/msgpack-json-fuzz.spec.ts (the normal build) and by
 * spec/fuzz/codec-fuzz.ts (the addon built with sanitizers).
 */
import { isDeepStrictEqual } from 'node:util';
import { unpackBody } from '../../lib/http/wire/codec.js';
import { jsonParser } from '../../lib/engine/index.js';

/** The rewrite under test: JSON text, or undefined when it declines. */
export type Rewrite = (body: Buffer) => string | undefined;
export type Outcome = 'rewritten' | 'declined';

/** The text may be at most 2 × body + this many bytes (msgpack-json.cc OutputBound). */
export const OUTPUT_SLACK = 64;

const PROTO_BYTES = Buffer.from('__proto__');

class Bytes {
  private readonly parts: Buffer[] = [];
  u8(...v: number[]): void {
    this.parts.push(Buffer.from(v.map((x) => x & 0xff)));
  }
  u16(v: number): void {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(v & 0xffff);
    this.parts.push(b);
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v >>> 0);
    this.parts.push(b);
  }
  u64(v: bigint): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt.asUintN(64, v));
    this.parts.push(b);
  }
  raw(b: Buffer): void {
    this.parts.push(b);
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const int = (rnd: () => number, n: number) => Math.floor(rnd() * n);
const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[int(rnd, xs.length)]!;

const UINT_EDGES = [
  0n,
  1n,
  127n,
  128n,
  255n,
  256n,
  65535n,
  65536n,
  2n ** 32n - 1n,
  2n ** 32n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 63n,
  2n ** 64n - 1n,
];
const FLOAT64_EDGES = [
  0,
  -0,
  0.5,
  0.1,
  1e21,
  1e-7,
  1.5e-7,
  5e-324,
  1.7976931348623157e308,
  NaN,
  Infinity,
  -Infinity,
  2 ** 53,
  123456789012345.6,
  0.1 + 0.2,
];

/** Text pieces: plain, digits, what JSON escapes, multi-byte UTF-8, and bytes that are not UTF-8. */
const PIECES: readonly Buffer[] = [
  'a',
  'Ann ',
  'user@example.com',
  'x'.repeat(31),
  '7',
  '0123456789',
  '12345678901234567890',
  '"',
  '\\',
  '\n',
  '\t',
  '\r',
  '\b',
  '\f',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '/',
  'é',
  'Zoë',
  '日本',
  '😀',
  '\u2028',
  '\ufeff',
  'constructor',
  'toString',
]
  .map((s) => Buffer.from(s, 'utf8'))
  .concat(
    [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xff], [0xc3]].map((b) =>
      Buffer.from(b),
    ),
  );
const UTF8_PIECES = PIECES.filter((p) => Buffer.from(p.toString('utf8'), 'utf8').equals(p));

function randomText(rnd: () => number): Buffer {
  const roll = rnd();
  // Mostly short; sometimes long, and then often one repeated escape (the amplification case).
  const pieces = roll < 0.7 ? int(rnd, 4) : roll < 0.98 ? 4 + int(rnd, 40) : 200 + int(rnd, 2000);
  if (roll >= 0.98 && rnd() < 0.5) return Buffer.alloc(pieces * 4, pick(rnd, [0x01, 0x0a, 0x22, 0x5c, 0x41, 0x35]));
  // Invalid UTF-8 in a few strings only, so that most bodies can be rewritten.
  const from = rnd() < 0.9 ? UTF8_PIECES : PIECES;
  return Buffer.concat(Array.from({ length: pieces }, () => pick(rnd, from)));
}

/** A string header of any width that can hold `n` (fixstr, str8, str16, str32). */
function writeStr(w: Bytes, rnd: () => number, text: Buffer): void {
  const n = text.length;
  const widths = [n < 32 ? 0 : -1, n < 256 ? 1 : -1, n < 65536 ? 2 : -1, 4].filter((x) => x >= 0);
  const width = rnd() < 0.7 ? widths[0]! : pick(rnd, widths);
  if (width === 0) w.u8(0xa0 | n);
  else if (width === 1) w.u8(0xd9, n);
  else if (width === 2) {
    w.u8(0xda);
    w.u16(n);
  } else {
    w.u8(0xdb);
    w.u32(n);
  }
  w.raw(text);
}

/** A container header (array or map) of any width that can hold `n`. */
function writeContainer(w: Bytes, rnd: () => number, kind: 'array' | 'map', n: number): void {
  const [fix, h16, h32] = kind === 'array' ? [0x90, 0xdc, 0xdd] : [0x80, 0xde, 0xdf];
  const roll = rnd();
  if (n < 16 && roll < 0.7) w.u8(fix | n);
  else if (n < 65536 && roll < 0.9) {
    w.u8(h16);
    w.u16(n);
  } else {
    w.u8(h32);
    w.u32(n);
  }
}

function writeNumber(w: Bytes, rnd: () => number): void {
  switch (int(rnd, 8)) {
    case 0:
      w.u8(int(rnd, 128));
      return; // positive fixint
    case 1:
      w.u8(0xe0 | int(rnd, 32));
      return; // negative fixint
    case 2: {
      // uint8..uint64, often at an edge
      const v = rnd() < 0.5 ? pick(rnd, UINT_EDGES) : BigInt(int(rnd, 2 ** 31)) * BigInt(1 + int(rnd, 2 ** 22));
      const width = pick(rnd, [1, 2, 4, 8]);
      w.u8({ 1: 0xcc, 2: 0xcd, 4: 0xce, 8: 0xcf }[width]!);
      return writeWidth(w, BigInt.asUintN(width * 8, v), width);
    }
    case 3: {
      // int8..int64
      const v = rnd() < 0.5 ? -pick(rnd, UINT_EDGES) : -BigInt(int(rnd, 2 ** 31)) * BigInt(1 + int(rnd, 2 ** 22));
      const width = pick(rnd, [1, 2, 4, 8]);
      w.u8({ 1: 0xd0, 2: 0xd1, 4: 0xd2, 8: 0xd3 }[width]!);
      return writeWidth(w, BigInt.asUintN(width * 8, v), width);
    }
    case 4: {
      const b = Buffer.alloc(4);
      b.writeFloatBE(rnd() < 0.5 ? pick(rnd, FLOAT64_EDGES) : (rnd() - 0.5) * 10 ** int(rnd, 12));
      w.u8(0xca);
      w.raw(b);
      return;
    }
    case 5: {
      const b = Buffer.alloc(8);
      b.writeDoubleBE(pick(rnd, FLOAT64_EDGES));
      w.u8(0xcb);
      w.raw(b);
      return;
    }
    case 6: {
      const b = Buffer.alloc(8);
      b.writeDoubleBE(Math.round((rnd() - 0.5) * 1e6) / 10 ** int(rnd, 5));
      w.u8(0xcb);
      w.raw(b);
      return;
    }
    default: {
      w.u8(0xcb);
      w.u32(int(rnd, 2 ** 32));
      w.u32(int(rnd, 2 ** 32));
    } // any bits: NaNs, denormals
  }
}

function writeWidth(w: Bytes, v: bigint, width: number): void {
  if (width === 8) w.u64(v);
  else if (width === 4) w.u32(Number(v));
  else if (width === 2) w.u16(Number(v));
  else w.u8(Number(v));
}

/** Binary, extensions and 0xc1: what the rewrite always leaves to msgpackr. */
function writeOther(w: Bytes, rnd: () => number): void {
  const data = Buffer.from(Array.from({ length: int(rnd, 20) }, () => int(rnd, 256)));
  switch (int(rnd, 5)) {
    case 0:
      w.u8(0xc4, data.length);
      w.raw(data);
      return;
    case 1:
      w.u8(0xc5);
      w.u16(data.length);
      w.raw(data);
      return;
    case 2: {
      const size = pick(rnd, [1, 2, 4, 8, 16]);
      w.u8({ 1: 0xd4, 2: 0xd5, 4: 0xd6, 8: 0xd7, 16: 0xd8 }[size]!, pick(rnd, [-1, 0, 5, 0x65, 0x72]));
      w.raw(Buffer.alloc(size, int(rnd, 256)));
      return;
    }
    case 3:
      w.u8(0xc7, data.length, pick(rnd, [-1, 1, 0x70]));
      w.raw(data);
      return;
    default:
      w.u8(0xc1);
  }
}

function writeKey(w: Bytes, rnd: () => number): void {
  const roll = rnd();
  if (roll < 0.9) return writeStr(w, rnd, rnd() < 0.3 ? Buffer.from(String(int(rnd, 12))) : randomText(rnd));
  if (roll < 0.95) return writeNumber(w, rnd);
  return w.u8(pick(rnd, [0xc0, 0xc3, 0x90, 0x80]));
}

/** Values left to write in this body: containers stay small once it is spent. */
interface Budget {
  values: number;
}

function writeValue(w: Bytes, rnd: () => number, depth: number, budget: Budget): void {
  budget.values--;
  const roll = int(rnd, depth > 6 ? 10 : 16);
  if (roll < 2) return w.u8(pick(rnd, [0xc0, 0xc2, 0xc3]));
  if (roll < 5) return writeNumber(w, rnd);
  if (roll < 9) return writeStr(w, rnd, randomText(rnd));
  if (roll < 10) return rnd() < 0.3 ? writeOther(w, rnd) : writeStr(w, rnd, randomText(rnd));
  const n = budget.values <= 0 ? 0 : rnd() < 0.9 ? int(rnd, 6) : int(rnd, 40);
  if (roll < 13) {
    writeContainer(w, rnd, 'array', n);
    for (let i = 0; i < n; i++) writeValue(w, rnd, depth + 1, budget);
    return;
  }
  writeContainer(w, rnd, 'map', n);
  for (let i = 0; i < n; i++) {
    writeKey(w, rnd);
    writeValue(w, rnd, depth + 1, budget);
  }
}

/** A chain of arrays and single-entry maps, around the depth limit of 100. */
function writeDeep(w: Bytes, rnd: () => number): void {
  const levels = 95 + int(rnd, 12);
  for (let i = 0; i < levels; i++) {
    if (rnd() < 0.5) writeContainer(w, rnd, 'array', 1);
    else {
      writeContainer(w, rnd, 'map', 1);
      writeStr(w, rnd, Buffer.from('k'));
    }
  }
  writeValue(w, rnd, 99, { values: 10 });
}

/** One random, mostly well-formed, MessagePack body. */
export function randomBody(rnd: () => number): Buffer {
  const w = new Bytes();
  if (rnd() < 0.05) writeDeep(w, rnd);
  else writeValue(w, rnd, 0, { values: rnd() < 0.95 ? 40 : 1000 });
  return w.done();
}

/** `body` damaged one to three ways: bits flipped, bytes replaced, cut, extended, spliced, huge lengths planted. */
export function mutateBody(rnd: () => number, body: Buffer): Buffer {
  let b = Buffer.from(body);
  for (let k = 1 + int(rnd, 3); k > 0; k--) {
    const at = int(rnd, Math.max(b.length, 1));
    switch (int(rnd, 7)) {
      case 0:
        if (b.length > 0) b[at] = b[at]! ^ (1 << int(rnd, 8));
        break;
      case 1:
        if (b.length > 0) b[at] = pick(rnd, [0xc1, 0xdb, 0xdd, 0xdf, 0xda, 0xdc, 0xde, 0xff, 0x00, 0x80, 0x9f, 0xbf]);
        break;
      case 2:
        b = b.subarray(0, at);
        break;
      case 3:
        b = Buffer.concat([b, Buffer.from(Array.from({ length: 1 + int(rnd, 4) }, () => int(rnd, 256)))]);
        break;
      case 4: {
        const from = int(rnd, Math.max(b.length, 1));
        b = Buffer.concat([b.subarray(0, at), b.subarray(from, from + int(rnd, 16)), b.subarray(at)]);
        break;
      }
      case 5: {
        // a 32-bit length near 2^32 (or 2^31) after a str32, array32 or map32 marker
        const marker = pick(rnd, [0xdb, 0xdd, 0xdf, 0xc6, 0xc9]);
        const len = Buffer.alloc(4);
        len.writeUInt32BE(pick(rnd, [0xffffffff, 0xfffffffe, 0x80000000, 0x7fffffff, 0x40000000]));
        b = Buffer.concat([b.subarray(0, at), Buffer.from([marker]), len, b.subarray(at)]);
        break;
      }
      default: {
        // a 16-bit length made as large as it goes
        const marker = pick(rnd, [0xda, 0xdc, 0xde]);
        b = Buffer.concat([b.subarray(0, at), Buffer.from([marker, 0xff, 0xff]), b.subarray(at)]);
      }
    }
  }
  return b;
}

/** A header byte, a big-endian length of `width` bytes, then `rest`. */
function headed(marker: number, length: number, width: 2 | 4, rest: Buffer = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(1 + width);
  b[0] = marker;
  if (width === 2) b.writeUInt16BE(length, 1);
  else b.writeUInt32BE(length, 1);
  return Buffer.concat([b, rest]);
}

/**
 * Bodies at the edges of the size arithmetic: lengths and counts near 2^32
 * over a few bytes, nesting far past the limit, and large strings whose text
 * is just within twice the body (rewritten, growing the text as it goes) or
 * past it (declined).
 */
export function edgeBodies(): Array<{ name: string; body: Buffer; outcome: Outcome }> {
  const mib = 1024 * 1024;
  const few = Buffer.from([0xc0, 0xa1, 0x61, 0x01]);
  return [
    { name: 'str32 of 2^32 - 1 bytes over four', body: headed(0xdb, 0xffffffff, 4, few), outcome: 'declined' },
    { name: 'str32 of 2^31 bytes over four', body: headed(0xdb, 0x80000000, 4, few), outcome: 'declined' },
    { name: 'str16 of 65,535 bytes over four', body: headed(0xda, 0xffff, 2, few), outcome: 'declined' },
    { name: 'array32 of 2^32 - 1 members over four', body: headed(0xdd, 0xffffffff, 4, few), outcome: 'declined' },
    { name: 'map32 of 2^32 - 1 entries over four', body: headed(0xdf, 0xffffffff, 4, few), outcome: 'declined' },
    {
      name: 'map32 of 2^31 entries over 64 nils',
      body: headed(0xdf, 0x80000000, 4, Buffer.alloc(64, 0xc0)),
      outcome: 'declined',
    },
    { name: 'bin32 of 2^32 - 1 bytes over four', body: headed(0xc6, 0xffffffff, 4, few), outcome: 'declined' },
    {
      name: 'a map key of str32 2^32 - 1 bytes',
      body: Buffer.concat([Buffer.from([0x81]), headed(0xdb, 0xffffffff, 4, few)]),
      outcome: 'declined',
    },
    { name: 'array32 of one nil, one byte short', body: headed(0xdd, 2, 4, Buffer.from([0xc0])), outcome: 'declined' },
    {
      name: '100,000 nested arrays',
      body: Buffer.concat([Buffer.alloc(100_000, 0x91), Buffer.from([0xc0])]),
      outcome: 'declined',
    },
    {
      name: '100,000 nested maps',
      body: Buffer.concat([
        Buffer.from(Array.from({ length: 100_000 }, () => [0x81, 0xa1, 0x6b]).flat()),
        Buffer.from([0xc0]),
      ]),
      outcome: 'declined',
    },
    {
      name: '1 MiB of control characters (text six times the body)',
      body: headed(0xdb, mib, 4, Buffer.alloc(mib, 0x01)),
      outcome: 'declined',
    },
    {
      name: '1 MiB of quotes (text twice the body)',
      body: headed(0xdb, mib, 4, Buffer.alloc(mib, 0x22)),
      outcome: 'rewritten',
    },
    {
      name: '1 MiB of a letter and a newline (text 1.5 times the body)',
      body: headed(0xdb, mib, 4, Buffer.from('a\n'.repeat(mib / 2))),
      outcome: 'rewritten',
    },
    {
      name: '1 MiB of a letter then control characters at the end',
      body: headed(0xdb, mib, 4, Buffer.concat([Buffer.alloc(mib - 4096, 0x61), Buffer.alloc(4096, 0x02)])),
      outcome: 'rewritten',
    },
    {
      name: '100,000 small ints (text four times the body)',
      body: headed(0xdd, 100_000, 4, Buffer.alloc(100_000, 0x7f)),
      outcome: 'declined',
    },
    {
      name: '100,000 digits 0-9 (text twice the body)',
      body: headed(0xdd, 100_000, 4, Buffer.from(Array.from({ length: 100_000 }, (_, i) => i % 10))),
      outcome: 'rewritten',
    },
  ];
}

/** The n-th body of a run: random or mutated, deterministic for (rnd state). */
export function nextBody(rnd: () => number): Buffer {
  const body = randomBody(rnd);
  return rnd() < 0.5 ? body : mutateBody(rnd, body);
}

/** msgpackr's value through the codec's checked path (what a declined body gets), or its refusal. */
function viaMsgpackr(raw: Buffer): { value: unknown } | { error: string } {
  try {
    return { value: unpackBody(raw) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * Runs `rewrite` on `raw` and throws an Error saying how it disagrees with
 * msgpackr, if it does. A body spelling `__proto__` is never given to the
 * rewrite by the codec, so it is only required not to crash on one.
 */
export function checkBody(raw: Buffer, rewrite: Rewrite): Outcome {
  const text = rewrite(raw);
  if (text === undefined) return 'declined';
  if (raw.includes(PROTO_BYTES)) return 'rewritten';
  const where = () =>
    `body ${raw.toString('hex').slice(0, 160)}${raw.length > 80 ? '…' : ''} (${raw.length} bytes), text ` +
    `${JSON.stringify(text.slice(0, 120))}`;
  const bound = 2 * raw.length + OUTPUT_SLACK;
  if (Buffer.byteLength(text, 'utf8') > bound)
    throw new Error(`text of ${Buffer.byteLength(text, 'utf8')} bytes passes the bound ${bound}: ${where()}`);
  const expected = viaMsgpackr(raw);
  if ('error' in expected) throw new Error(`rewritten, but msgpackr refuses it (${expected.error}): ${where()}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`text is not JSON (${(err as Error).message}): ${where()}`);
  }
  if (!isDeepStrictEqual(parsed, expected.value))
    throw new Error(`rewritten to another value than msgpackr's: ${where()}`);
  // JSON.parse alone must read the text as the JSON path's exact parser would (no integer of 16 digits or more).
  if (!isDeepStrictEqual(jsonParser(text)(text), parsed))
    throw new Error(`the exact JSON parser reads the text otherwise: ${where()}`);
  return 'rewritten';
}
