/**
 * Goal search: every word of the query appears in some string member (at any
 * depth), case-insensitively; the kept transitions are not searched (every
 * goal that moved would match `approve`).
 */
import { isPlainObject } from '../engine/index.js';

export function matchesText(record: unknown, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text: string[] = [];
  collect(record, text);
  const all = text.join('\n').toLowerCase();
  return words.every((w) => all.includes(w));
}

function collect(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collect(item, out);
  else if (isPlainObject(value))
    for (const [name, member] of Object.entries(value)) if (name !== 'transitions') collect(member, out);
}
