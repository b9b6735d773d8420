/**
 * An API key's rights as the console edits them, to and from the server's shape (docs/http-api.md "Auth and
 * keys"), and a one-line summary of them for the key list.
 */

export interface Grant {
  read?: boolean;
  write?: boolean;
  writable_fields?: string[];
  prefixes?: string[];
}

/** A key as GET /api/auth/keys and /api/auth/me list it (never its secret). */
export interface KeyView {
  id: string;
  name: string;
  admin: boolean;
  created_at: string;
  collection_permissions?: Record<string, Grant>;
  kv_permissions?: Grant;
  rate_limit?: number;
}

/** The id of the key the server starts with: it may be neither changed nor revoked. */
export const BOOTSTRAP_KEY_ID = 'admin';

/** One collection's grant in the editor; `fields` is the comma-separated writable fields (empty: every field). */
export interface CollectionRow {
  collection: string;
  read: boolean;
  write: boolean;
  fields: string;
}

export interface Rights {
  name: string;
  admin: boolean;
  /** False: every collection; true: only the rows below (an empty list grants none). */
  limitCollections: boolean;
  collections: CollectionRow[];
  kvRead: boolean;
  kvWrite: boolean;
  /** KV key prefixes, one a line (empty: the whole store). */
  kvPrefixes: string;
  /** Requests per window as typed; empty or 0: no per-key quota. */
  rateLimit: string;
}

export const NEW_KEY_RIGHTS: Rights = {
  name: '',
  admin: false,
  limitCollections: true,
  collections: [],
  kvRead: false,
  kvWrite: false,
  kvPrefixes: '',
  rateLimit: '',
};

/** The editor's state for a stored key. */
export function rightsOf(key: KeyView): Rights {
  const perms = key.collection_permissions;
  const kv = key.kv_permissions;
  // Neither grant: the whole store. A collection grant alone: no key-value access.
  const restricted = perms !== undefined || kv !== undefined;
  return {
    name: key.name,
    admin: key.admin,
    limitCollections: perms !== undefined,
    collections: Object.entries(perms ?? {}).map(([collection, g]) => ({
      collection,
      read: g.read !== false,
      write: g.write === true,
      fields: (g.writable_fields ?? []).join(', '),
    })),
    kvRead: kv ? kv.read !== false : !restricted,
    kvWrite: kv ? kv.write === true : !restricted,
    kvPrefixes: (kv?.prefixes ?? []).join('\n'),
    rateLimit: key.rate_limit ? String(key.rate_limit) : '',
  };
}

const list = (text: string, separator: RegExp) =>
  text
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);

/** The body of POST /api/auth/keys or PUT /api/auth/keys/{id} for these rights. */
export function requestBody(r: Rights): Record<string, unknown> {
  const body: Record<string, unknown> = { name: r.name.trim() || 'key', admin: r.admin };
  const prefixes = list(r.kvPrefixes, /\n/);
  const wholeKv = r.kvRead && r.kvWrite && prefixes.length === 0;
  if (r.limitCollections) {
    const grants: Record<string, Grant> = {};
    for (const row of r.collections) {
      const name = row.collection.trim();
      if (!name) continue;
      const fields = list(row.fields, /,/);
      grants[name] = { read: row.read, write: row.write, ...(fields.length ? { writable_fields: fields } : {}) };
    }
    body.collection_permissions = grants;
  }
  // Every collection and the whole store is a key without grants; a collection grant alone means no KV access.
  const noKv = !r.kvRead && !r.kvWrite;
  const kvSaid = r.limitCollections ? !noKv : !wholeKv;
  if (kvSaid) body.kv_permissions = { read: r.kvRead, write: r.kvWrite, ...(prefixes.length ? { prefixes } : {}) };
  const rate = Number(r.rateLimit);
  if (r.rateLimit.trim() !== '' && Number.isInteger(rate) && rate > 0) body.rate_limit = rate;
  return body;
}

/** What is wrong with the rights before sending them (the server checks again), or undefined. */
export function rightsProblem(r: Rights): string | undefined {
  const rate = r.rateLimit.trim();
  if (rate !== '' && !(Number.isInteger(Number(rate)) && Number(rate) >= 0))
    return 'The rate limit must be a whole number of requests (0 or empty: none).';
  const names = r.collections.map((c) => c.collection.trim()).filter(Boolean);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) return `The collection ${twice} is listed twice.`;
  return undefined;
}

function grantText(g: Grant): string {
  const modes = [g.read !== false && 'read', g.write === true && 'write'].filter(Boolean).join(', ') || 'none';
  const fields = g.writable_fields ? ` (writes ${g.writable_fields.join(', ')})` : '';
  const prefixes = g.prefixes ? ` under ${g.prefixes.join(', ')}` : '';
  return modes + fields + prefixes;
}

/** A short account of what a key may do, for the key list and "Signed in as". */
export function rightsSummary(key: KeyView): string {
  if (key.admin) return 'Everything (admin)';
  const perms = key.collection_permissions;
  const kv = key.kv_permissions;
  if (!perms && !kv) return 'Every collection and the whole key-value store';
  const collections = perms
    ? Object.entries(perms)
        .map(([name, g]) => `${name === '*' ? 'any other collection' : name}: ${grantText(g)}`)
        .join('; ') || 'no collections'
    : 'every collection';
  const kvText = kv ? `key-value: ${grantText(kv)}` : 'no key-value access';
  return `${collections} · ${kvText}`;
}
