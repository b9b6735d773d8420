/**
 * RFC 3339 date-times: detection, normalisation to UTC with `+00:00`, and an
 * order key. Fractional seconds keep the precision they arrived with (up to
 * nanoseconds), which `Date` alone would truncate to milliseconds.
 */

const DASH = 0x2d;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export function isRfc3339(text: string): boolean {
  return normalizeDateTime(text) !== undefined;
}

/**
 * Normalises an RFC 3339 string to UTC, `+00:00` offset, fraction preserved.
 * Returns undefined for anything else, including impossible dates (February
 * 30th) and instants that fall outside the years 0000-9999 once in UTC.
 */
export function normalizeDateTime(text: string): string | undefined {
  // Every string field of a new record is asked: most fail on the fifth character, without the regex.
  if (text.length < 20 || text.length > 40 || text.charCodeAt(4) !== DASH) return undefined;
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, yearText, mo, dayText, hour, mi, se, frac = '', zone] = match;
  const year = Number(yearText),
    month = Number(mo),
    day = Number(dayText);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (Number(hour) > 23 || Number(mi) > 59 || Number(se) > 60) return undefined;
  let ms = utcMillis(year, month, day, Number(hour), Number(mi), Math.min(Number(se), 59));
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone![0] === '-' ? -1 : 1;
    const offMin = Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6));
    ms -= sign * offMin * 60_000;
  }
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ, or ±YYYYYY-... outside years 0-9999
  if (!/^\d{4}-/.test(iso)) return undefined;
  return `${iso.slice(0, 19)}${frac}+00:00`;
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcMillis(year, month + 1, 0, 0, 0, 0)).getUTCDate();
}

/** Date.UTC without its mapping of years 0-99 to 1900-1999. Day 0 is the last day of the previous month. */
function utcMillis(year: number, month: number, day: number, hits: number, mi: number, se: number): number {
  const date = new Date(Date.UTC(2000, month - 1, day, hits, mi, se));
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

/** Normalised DateTime string from epoch milliseconds (for server-made timestamps). */
export function dateTimeFromMillis(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

/** Epoch milliseconds (with sub-ms fraction) of a normalised DateTime, for ordering. */
export function dateTimeOrderKey(normalized: string): number {
  const base = Date.parse(normalized.slice(0, 19) + 'Z');
  const fracMatch = /^\.(\d+)/.exec(normalized.slice(19));
  const frac = fracMatch ? Number('0.' + fracMatch[1]) * 1000 : 0;
  return base + frac;
}
