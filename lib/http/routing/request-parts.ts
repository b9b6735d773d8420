/**
 * Small readers of a request that the Dispatcher uses: its path without the
 * query, its query parameters (a repeated one as a list), the first of a
 * parameter's values, and the rate-limit headers of its answer.
 */
/** A parameter's value, or its first when repeated. */
export function firstOf(given: string | string[] | undefined): string | undefined {
  return Array.isArray(given) ? given[0] : given;
}

/** The X-RateLimit-* headers of an answer to a key under a quota. */
export function rateHeaders(rate: { limit: number; remaining: number; reset: number }): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(rate.limit),
    'X-RateLimit-Remaining': String(rate.remaining),
    'X-RateLimit-Reset': String(rate.reset),
  };
}

/** Query parameters by name: a repeated one as a list of its values, in order. */
export function parseQuery(qs: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  if (!qs) return out;
  for (const [name, value] of new URLSearchParams(qs)) {
    const prev = out[name];
    out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

/** The path of a request URL, without its query (which may hold a token). */
export function pathOf(url: string): string {
  const qAt = url.indexOf('?');
  return qAt < 0 ? url : url.slice(0, qAt);
}
