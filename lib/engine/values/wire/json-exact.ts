/**
 * Exact JSON, the slow paths of `json.ts`.
 *
 * `JSON.parse` rounds an integer beyond 2^53 to the nearest float, and Node
 * 20 offers no access to the source text of a number; `JSON.stringify`
 * throws on a bigint. This reader reads an integer literal of 16 or more
 * digits with BigInt (a number again when it is safe), everything else
 * exactly as `JSON.parse` would; the writer writes bigints as their digits
 * and binary as arrays of byte numbers (protocol.md 1.4 rule 6), everything
 * else exactly as `JSON.stringify` would. Neither decides whether a value
 * fits a field: an integer beyond 64 bits is read as is and refused by the
 * consumer that knows the field's name.
 */
import { InvalidInput } from '../../../errors.js';
import { integerValue } from '../int64.js';

/** Containers nested deeper than this are refused (the readers downstream allow far less). */
export const MAX_JSON_DEPTH = 1000;
/** Integer literals longer than this are refused: BigInt parsing is superlinear, and i64 needs 19. */
export const MAX_INTEGER_DIGITS = 100;

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const QUOTE = 0x22,
  BACKSLASH = 0x5c;

/**
 * Parses JSON text like `JSON.parse`, except that integer literals beyond
 * ±(2^53 - 1) become bigints (of any size up to MAX_INTEGER_DIGITS digits).
 * Duplicate keys keep the last value. Throws InvalidInput for a `__proto__`
 * key, nesting deeper than MAX_JSON_DEPTH or an overlong integer, and
 * SyntaxError (with a position) for text that is not JSON.
 */
export function parseExactJson(text: string): unknown {
  const reader = new JsonReader(text);
  reader.skipSpace();
  const value = reader.value(0);
  reader.skipSpace();
  if (reader.pos < text.length) throw reader.unexpected();
  return value;
}

class JsonReader {
  pos = 0;
  constructor(private readonly text: string) {}

  skipSpace(): void {
    const text = this.text;
    for (
      let c = text.charCodeAt(this.pos);
      c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
      c = text.charCodeAt(++this.pos)
    );
  }

  unexpected(): SyntaxError {
    if (this.pos >= this.text.length) return new SyntaxError('Unexpected end of JSON input');
    return new SyntaxError(`Unexpected character ${JSON.stringify(this.text[this.pos])} at position ${this.pos}`);
  }

  value(depth: number): unknown {
    switch (this.text[this.pos]) {
      case '{':
        return this.object(depth + 1);
      case '[':
        return this.array(depth + 1);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        return this.number();
    }
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) throw this.unexpected();
    this.pos += word.length;
    return value;
  }

  private expect(ch: string): void {
    if (this.text[this.pos] !== ch) throw this.unexpected();
    this.pos += 1;
  }

  private object(depth: number): Record<string, unknown> {
    if (depth > MAX_JSON_DEPTH) throw new InvalidInput('Body nested too deeply');
    this.pos += 1;
    const out: Record<string, unknown> = {};
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos += 1;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text.charCodeAt(this.pos) !== QUOTE) throw this.unexpected();
      const key = this.string();
      if (key === '__proto__') throw new InvalidInput("Forbidden key '__proto__' in body");
      this.skipSpace();
      this.expect(':');
      this.skipSpace();
      out[key] = this.value(depth);
      this.skipSpace();
      if (this.text[this.pos] === '}') {
        this.pos += 1;
        return out;
      }
      this.expect(',');
    }
  }

  private array(depth: number): unknown[] {
    if (depth > MAX_JSON_DEPTH) throw new InvalidInput('Body nested too deeply');
    this.pos += 1;
    const out: unknown[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos += 1;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.value(depth));
      this.skipSpace();
      if (this.text[this.pos] === ']') {
        this.pos += 1;
        return out;
      }
      this.expect(',');
    }
  }

  /** A string token; escapes are decoded (and validated) by JSON.parse on just that token. */
  private string(): string {
    const text = this.text;
    const start = this.pos;
    let escaped = false;
    for (let i = start + 1; ; i++) {
      const order = text.charCodeAt(i);
      if (order === QUOTE) {
        this.pos = i + 1;
        break;
      }
      if (order === BACKSLASH) {
        escaped = true;
        i += 1;
        continue;
      }
      if (!(order >= 0x20)) {
        this.pos = i;
        throw this.unexpected();
      } // a control character, or the end (NaN)
    }
    if (!escaped) return text.slice(start + 1, this.pos - 1);
    try {
      return JSON.parse(text.slice(start, this.pos)) as string;
    } catch {
      throw new SyntaxError(`Bad escape in the string at position ${start}`);
    }
  }

  private number(): number | bigint {
    const start = this.pos;
    NUMBER.lastIndex = start;
    const match = NUMBER.exec(this.text);
    if (!match) throw this.unexpected();
    const literal = match[0];
    this.pos += literal.length;
    const digits = literal.length - (literal[0] === '-' ? 1 : 0);
    // Only an integer literal of 16+ digits can pass 2^53 (9007199254740992 has 16).
    if (match[1] !== undefined || match[2] !== undefined || digits < 16) return Number(literal);
    if (digits > MAX_INTEGER_DIGITS) {
      throw new InvalidInput(
        `Integer of ${digits} digits at position ${start} of the body: at most ${MAX_INTEGER_DIGITS} digits are read`,
      );
    }
    return integerValue(BigInt(literal));
  }
}

/**
 * Writes JSON like `JSON.stringify` (toJSON, skipped undefined members,
 * null for undefined array items and non-finite numbers), plus bigints as
 * their digits and Uint8Arrays as arrays of byte numbers. Returns undefined
 * when `JSON.stringify` would. Throws TypeError on a circular structure.
 */
export function writeExactJson(value: unknown): string | undefined {
  return write(value, '', []);
}

/** Characters a JSON string must escape (lone surrogates included, as JSON.stringify does). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** The JSON of `value` read as member `key`, or undefined when it has none (undefined, a function). */
function write(value: unknown, key: string, ancestors: object[]): string | undefined {
  if (value instanceof Uint8Array) value = Array.from(value);
  else if (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON(name: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (ancestors.includes(value)) throw new TypeError('Converting circular structure to JSON');
  ancestors.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++)
      out += (i > 0 ? ',' : '') + (write(value[i], String(i), ancestors) ?? 'null');
    out += ']';
  } else {
    out = '{';
    for (const name of Object.keys(value)) {
      const item = write((value as Record<string, unknown>)[name], name, ancestors);
      if (item !== undefined) out += (out.length > 1 ? ',' : '') + quote(name) + ':' + item;
    }
    out += '}';
  }
  ancestors.pop();
  return out;
}
