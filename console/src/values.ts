/** Typed values as the server returns them (`{type, value}`), shown as text with their type. */

export interface Typed {
  type: string;
  value: unknown;
}

export function isTyped(v: unknown): v is Typed {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'type' in v && 'value' in v;
}

/** The type name to show beside a value. */
export function typeOf(v: unknown): string {
  if (isTyped(v)) return v.type;
  if (v === null || v === undefined) return 'Null';
  if (Array.isArray(v)) return 'Array';
  return typeof v === 'object' ? 'Object' : typeof v;
}

/** A short text for a table cell. */
export function display(v: unknown): string {
  const inner = isTyped(v) ? v.value : v;
  if (inner === null || inner === undefined) return '—';
  if (typeof inner === 'string') return inner.length > 80 ? inner.slice(0, 79) + '…' : inner;
  const text = JSON.stringify(inner);
  return text.length > 80 ? text.slice(0, 79) + '…' : text;
}

/** Parses what a person typed in a filter's value box: JSON when it parses, text otherwise. */
export function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
