/**
 * The keys unique checks and alias lookups bucket values by, shared by the
 * committed index (unique-index.ts) and a view's staged values
 * (staged-values.ts), so both find the same candidates.
 */
import { bareValue, dateTimeOrderKey, hashKey, normalizeDateTime, type Value } from '../values/index.js';

/** Equal values under `equalValues` share a key (a DateTime and its RFC 3339 string too). */
export function uniqueValueKey(value: Value): string {
  const key = hashKey(value);
  if (key.startsWith('s')) {
    const normalized = normalizeDateTime(key.slice(1));
    if (normalized !== undefined) return 'D' + dateTimeOrderKey(normalized);
  }
  // Inside lists and objects a date and a string may also be equal: one coarse bucket, compared by the caller.
  if (key.startsWith('l[') || key.startsWith('o{')) return '*';
  return key;
}

/** The alias text `findByAlias` compares. */
export function aliasKey(value: Value): string {
  return String(bareValue(value));
}
