/**
 * TTLs: parsing, the stored form, and the read-time test of expiry.
 *
 * A TTL arrives as a duration string ("30s", "5m", "1h", "2d",
 * combinations like "1h30m", or bare digits meaning seconds), an integer
 * number of seconds, or an RFC 3339 instant. It is resolved to an absolute
 * expiry before the write is logged, so replay never reads the clock.
 * Reads compare that expiry with the clock (isExpired), so an expired record
 * is gone for readers before the sweeper (expiry.ts) removes it.
 */
import { InvalidInput } from '../../errors.js';
import type { RecordEntry } from '../write/state.js';
import { isPlainObject, normalizeDateTime, Tagged } from '../values/index.js';

/** Expiries must be writable as a 4-digit-year RFC 3339 instant. */
const MAX_EXPIRY_MS = Date.UTC(10000, 0, 1) - 1;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;

/** Milliseconds of a duration, or undefined if `raw` is not a duration. */
export function parseDurationMs(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) && raw > 0 ? raw * 1000 : undefined;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) > 0 ? Number(text) * 1000 : undefined;
  if (!/^(\d+(?:\.\d+)?(ms|s|m|h|d|w))+$/.test(text)) return undefined;
  let total = 0;
  for (const part of text.matchAll(PART)) total += Number(part[1]) * UNIT_MS[part[2]!]!;
  return total > 0 ? total : undefined;
}

export interface ResolvedTtl {
  expiresAt: number;
  slidingMs?: number;
}

/**
 * Resolves a `ttl` member to an absolute expiry. Throws InvalidInput when
 * unparseable, not positive, or expiring after the year 9999.
 */
export function resolveTtl(raw: unknown, now: number, sliding: boolean): ResolvedTtl {
  if (isPlainObject(raw) && 'value' in raw) raw = raw.value;
  if (raw instanceof Tagged) raw = raw.value;
  const ms = parseDurationMs(raw);
  if (ms !== undefined) return inRange(raw, sliding ? { expiresAt: now + ms, slidingMs: ms } : { expiresAt: now + ms });
  if (typeof raw === 'string') {
    const iso = normalizeDateTime(raw);
    if (iso !== undefined) {
      const at = Date.parse(iso.replace('+00:00', 'Z'));
      return inRange(raw, sliding ? { expiresAt: at, slidingMs: Math.max(at - now, 1) } : { expiresAt: at });
    }
  }
  throw new InvalidInput(
    `Invalid ttl ${shownTtl(raw)}: use seconds, a duration such as "30s", "5m", "1h", or an RFC 3339 instant`,
  );
}

function inRange(raw: unknown, ttl: ResolvedTtl): ResolvedTtl {
  if (!(ttl.expiresAt <= MAX_EXPIRY_MS))
    throw new InvalidInput(`Invalid ttl ${shownTtl(raw)}: the expiry must be before the year 10000`);
  return ttl;
}

function shownTtl(raw: unknown): string {
  return typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'bigint'
    ? `'${String(raw).slice(0, 40)}'`
    : `of type ${Array.isArray(raw) ? 'array' : typeof raw}`;
}

/** The bare RFC 3339 string stored in a record's `ttl` field. */
export function ttlString(expiresAt: number): string {
  return new Date(expiresAt).toISOString();
}

/** True when the record has a TTL and it has passed at `now`. */
export function isExpired(entry: RecordEntry, now: number): boolean {
  return entry.expiresAt !== undefined && entry.expiresAt <= now;
}
