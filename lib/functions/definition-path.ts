/**
 * Save-time errors that name where in a definition they are, e.g.
 * "functions[1].condition.value: 'field' must be a non-empty string".
 *
 * Every message starts with the path so a client can find the bad member,
 * and the body's `details` holds it apart: `{path, message}` (the console
 * marks the step it names). Engine parsers (field paths, wire values) phrase
 * their own messages, and `atPath` prefixes those with the path too.
 */
import { InvalidInput } from '../errors.js';

/** An InvalidInput whose message is "<path>: <message>". */
export function invalidAt(path: string, message: string): InvalidInput {
  return new InvalidInput(`${path}: ${message}`, { details: { path, message } });
}

/**
 * Runs `parse` and re-throws an InvalidInput from it with `path` in front of
 * its message, so engine parsers' errors name the definition path as well.
 * Other errors pass through untouched.
 */
export function atPath<T>(path: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof InvalidInput && !err.message.startsWith(`${path}: `))
      throw new InvalidInput(`${path}: ${err.message}`, { cause: err, details: { path, message: err.message } });
    throw err;
  }
}

/** The kind of a definition value, for messages: "a string", "an array", "null"... */
export function kindOfRaw(raw: unknown): string {
  if (raw === null) return 'null';
  if (raw === undefined) return 'nothing';
  if (Array.isArray(raw)) return 'an array';
  switch (typeof raw) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'bigint':
      return 'an integer';
    case 'boolean':
      return 'a boolean';
    default:
      return 'an object';
  }
}
