/**
 * RFC 3339 date-times: detection, normalisation to UTC with `+00:00`, and an
 * order key. Fractional seconds keep the precision they arrived with (up to
 * nanoseconds), which `Date` alone would truncate to milliseconds.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export function isRfc3339(s: string): boolean {
  if (s.length < 20 || s.length > 40) return false;
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [, y, mo, d, h, mi, se] = m;
  const month = Number(mo), day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  if (Number(h) > 23 || Number(mi) > 59 || Number(se) > 60) return false;
  return !Number.isNaN(Date.UTC(Number(y), month - 1, day));
}

/** Normalises an RFC 3339 string to UTC, `+00:00` offset, fraction preserved. Returns undefined if invalid. */
export function normalizeDateTime(s: string): string | undefined {
  const m = RFC3339.exec(s);
  if (!m || !isRfc3339(s)) return undefined;
  const [, y, mo, d, h, mi, se, frac = '', zone] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Math.min(Number(se), 59));
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone![0] === '-' ? -1 : 1;
    const offMin = Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6));
    ms -= sign * offMin * 60_000;
  }
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, 19)}${frac}+00:00`;
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
