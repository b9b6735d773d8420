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

/**
 * A query of plain `name=value` pairs, where decoding changes nothing (no `%`, `+` or characters URLSearchParams
 * would treat apart). Most queries are one such pair (`?transaction_id=...`), read without URLSearchParams.
 */
const PLAIN_QUERY = /^[\w.~:-]+=[\w.~:,-]*(?:&[\w.~:-]+=[\w.~:,-]*)*$/;

/** Query parameters by name: a repeated one as a list of its values, in order. */
export function parseQuery(qs: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  if (!qs) return out;
  const add = (name: string, value: string) => {
    const prev = out[name];
    out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  };
  if (qs.length <= 512 && PLAIN_QUERY.test(qs)) {
    for (const pair of qs.split('&')) {
      const eq = pair.indexOf('=');
      add(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return out;
  }
  for (const [name, value] of new URLSearchParams(qs)) add(name, value);
  return out;
}

/** The path of a request URL, without its query (which may hold a token). */
export function pathOf(url: string): string {
  const qAt = url.indexOf('?');
  return qAt < 0 ? url : url.slice(0, qAt);
}
