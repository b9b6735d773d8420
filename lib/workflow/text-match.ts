/**
 * Goal search: every word of the query appears in some string member (at any
 * depth), case-insensitively; the kept transitions are not searched (every
 * goal that moved would match `approve`).
 */
import { isPlainObject } from '../engine/index.js';

export function matchesText(record: unknown, q: string): boolean {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text: string[] = [];
  collect(record, text);
  const all = text.join('\n').toLowerCase();
  return words.every((w) => all.includes(w));
}

function collect(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) collect(x, out);
  else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) if (k !== 'transitions') collect(x, out);
}
