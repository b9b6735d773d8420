/**
 * Permissions of non-admin keys, checked before a procedure touches data.
 *
 * Collections: a key without `collection_permissions` may use every
 * collection; with them, only the listed ones (or `*`), for the listed
 * operations, and only the writable fields when those are set.
 *
 * The stored-function collections (`__functions`, `__function_history`)
 * are admins' alone: a definition runs with instance-wide rights, so
 * writing one as a record would bypass the admin-only save. So are the
 * workflow collections: goals, goal templates, tasks, agents, schedules and
 * their runs (a raw write would skip their lifecycles; their routes are
 * admin-only).
 *
 * Key-value store: a key with neither `collection_permissions` nor
 * `kv_permissions` (an unrestricted key) may read and write every KV key. A
 * restricted key needs a `kv_permissions` grant (default deny), and then
 * may only read and/or write as granted, and only keys starting with one of
 * its `prefixes` when it has them. Clearing the whole store is admin-only,
 * which the procedure's access level enforces, not this file.
 */
import { Forbidden } from '../../errors.js';
import type { CollectionPermission, KvPermission } from '../../engine/index.js';
import { ADMIN_ONLY_COLLECTIONS } from '../../functions/index.js';
import { WORKFLOW_COLLECTIONS } from '../../workflow/index.js';
import type { Principal } from './principal.js';

type Mode = 'read' | 'write';

function collectionPermission(principal: Principal, collection: string): CollectionPermission | 'all' | undefined {
  const perms = principal.key.collection_permissions;
  if (principal.admin) return 'all';
  // Stored definitions run with instance-wide rights: only admins may see or write them, even as records.
  if (ADMIN_ONLY_COLLECTIONS.has(collection) || WORKFLOW_COLLECTIONS.has(collection)) return undefined;
  if (!perms) return 'all';
  return Object.hasOwn(perms, collection) ? perms[collection] : Object.hasOwn(perms, '*') ? perms['*'] : undefined;
}

/** `fields`: the fields a write sets, asked for only when the key limits the fields it may write. */
export function checkCollectionAccess(
  principal: Principal,
  collection: string,
  mode: Mode,
  fields?: () => readonly string[],
): void {
  const perm = collectionPermission(principal, collection);
  if (perm === 'all') return;
  if (!perm) throw new Forbidden(`This API key has no access to collection '${collection}'`);
  if (mode === 'read' && !perm.read) throw new Forbidden(`This API key may not read collection '${collection}'`);
  if (mode === 'write' && !perm.write) throw new Forbidden(`This API key may not write collection '${collection}'`);
  if (mode === 'write' && fields && perm.writable_fields) {
    const allowed = new Set(perm.writable_fields);
    const denied = fields().filter((f) => f !== 'id' && !allowed.has(f));
    if (denied.length > 0) {
      throw new Forbidden(`Fields not writable with this API key in '${collection}': ${denied.join(', ')}`);
    }
  }
}

/** True when the key may read `collection` (a filter for lists that name collections). */
export function canReadCollection(principal: Principal | undefined, collection: string): boolean {
  if (!principal) return true;
  const perm = collectionPermission(principal, collection);
  return perm === 'all' || perm?.read === true;
}

/** The key's KV grant: 'all' for admin and unrestricted keys, undefined when it has none. */
function kvGrant(principal: Principal): KvPermission | 'all' | undefined {
  if (principal.admin) return 'all';
  const { collection_permissions: collections, kv_permissions: kv } = principal.key;
  if (kv) return kv;
  return collections ? undefined : 'all';
}

function hasPrefix(key: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (key.startsWith(prefix)) return true;
  return false;
}

/**
 * Throws Forbidden unless the caller may `mode` the KV store and, when its
 * grant has prefixes, every one of `keys`. Checks all keys before the caller
 * touches any, so a batch with one forbidden key writes nothing. With no
 * principal (an in-process call) everything is allowed.
 */
export function checkKvAccess(principal: Principal | undefined, mode: Mode, keys: readonly string[]): void {
  if (!principal) return;
  const grant = kvGrant(principal);
  if (grant === 'all') return;
  if (!grant) throw new Forbidden('This API key has no access to the key-value store');
  if (!grant[mode]) throw new Forbidden(`This API key may not ${mode} the key-value store`);
  const prefixes = grant.prefixes;
  if (!prefixes) return;
  for (const key of keys) {
    if (!hasPrefix(key, prefixes)) {
      const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
      throw new Forbidden(
        `This API key may not use KV key '${shown}'; its keys must start with ` +
          `${prefixes.map((x) => `'${x}'`).join(', ')}`,
      );
    }
  }
}

/**
 * Which KV keys the caller may see in a listing; undefined when it may see
 * all. REQUIRES: `checkKvAccess(principal, 'read', [])` passed.
 */
export function kvKeyFilter(principal: Principal | undefined): ((key: string) => boolean) | undefined {
  const grant = principal ? kvGrant(principal) : 'all';
  if (grant === 'all' || !grant?.prefixes) return undefined;
  const prefixes = grant.prefixes;
  return (key) => hasPrefix(key, prefixes);
}
