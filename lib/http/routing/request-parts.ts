/**
 * Small readers of a request that the Dispatcher uses: its path without the
 * query, its named arguments (query and path parameters), the first of a
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

/**
 * A request's named arguments: its query parameters by name (a repeated one as a list of its values, in order), then
 * its path parameters, which win over query parameters of the same name. The object holds no prototype, so a
 * parameter named `__proto__` or `constructor` is just a name.
 */
export function requestArgs(
  qs: string,
  params: Readonly<Record<string, string>> = {},
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const name in params) out[name] = params[name]!;
  if (!qs) return out;
  if (qs.length <= 512 && PLAIN_QUERY.test(qs)) {
    for (let start = 0; start < qs.length;) {
      let end = qs.indexOf('&', start);
      if (end < 0) end = qs.length;
      const eq = qs.indexOf('=', start);
      addQueryValue(out, params, qs.slice(start, eq), qs.slice(eq + 1, end));
      start = end + 1;
    }
    return out;
  }
  for (const [name, value] of new URLSearchParams(qs)) addQueryValue(out, params, name, value);
  return out;
}

function addQueryValue(
  out: Record<string, string | string[]>,
  params: Readonly<Record<string, string>>,
  name: string,
  value: string,
): void {
  name = knownName(name);
  if (Object.hasOwn(params, name)) return;
  const prev = out[name];
  out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
}

/**
 * Parameter names met before, each held as one string. A name sliced from a URL is a new string, and V8 looks a
 * new string up in its string table (large in a server holding many records) each time it is used as a property
 * key; the held string was looked up once. Bounded: once NAMES_KEPT names are held, others are used as they come.
 */
const knownNames = new Map<string, string>();
const NAMES_KEPT = 256;

function knownName(name: string): string {
  const known = knownNames.get(name);
  if (known !== undefined) return known;
  if (knownNames.size < NAMES_KEPT) knownNames.set(name, name);
  return name;
}

/** The path of a request URL, without its query (which may hold a token). */
export function pathOf(url: string): string {
  const qAt = url.indexOf('?');
  return qAt < 0 ? url : url.slice(0, qAt);
}
