/**
 * How offending input is named inside InvalidInput messages.
 *
 * Strings are quoted (and cut short), other values are named by their kind,
 * so a message says what was wrong without echoing a whole request body.
 * This file formats text only; it does not validate anything.
 */

const MAX_SHOWN = 40;

/** The JSON-ish kind of a wire value: 'null', 'array', 'object', 'string', ... */
export function kindOf(raw: unknown): string {
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return 'an array';
  if (raw instanceof Uint8Array) return 'binary';
  switch (typeof raw) {
    case 'object':
      return 'an object';
    case 'undefined':
      return 'nothing';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'bigint':
      return 'an integer beyond ±(2^53 - 1)';
    case 'boolean':
      return 'a boolean';
    default:
      return typeof raw;
  }
}

/** `'Foo'` for a string (truncated), the kind for anything else. */
export function shown(raw: unknown): string {
  if (typeof raw !== 'string') return kindOf(raw);
  const text = raw.length > MAX_SHOWN ? raw.slice(0, MAX_SHOWN) + '…' : raw;
  return `'${text}'`;
}
