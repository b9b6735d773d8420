/**
 * What the signed-in key may do, from GET /api/auth/me, with the server's rules (lib/http/auth/permissions.ts)
 * mirrored so that pages disable what would be refused instead of letting it fail. The server still decides.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, getToken } from './api.js';
import { ADMIN_ONLY_COLLECTIONS } from './server-tables.js';

interface Grant {
  read?: boolean;
  write?: boolean;
  writable_fields?: string[];
  prefixes?: string[];
}

export interface Access {
  id: string;
  name: string;
  admin: boolean;
  collection_permissions?: Record<string, Grant>;
  kv_permissions?: Grant;
}

export type Mode = 'read' | 'write';

let cached: { token: string; access: Promise<Access> } | undefined;

/** The rights of the tab's key, fetched once per token. */
export function loadAccess(): Promise<Access> {
  const token = getToken() ?? '';
  if (!cached || cached.token !== token) {
    const access = api<Access>('GET', '/api/auth/me');
    cached = { token, access };
    access.catch(() => {
      if (cached?.access === access) cached = undefined;
    });
  }
  return cached.access;
}

/** The rights as a hook: null until known (pages render their controls disabled meanwhile). */
export function useAccess(): Access | null {
  const [access, setAccess] = useState<Access | null>(null);
  useEffect(() => {
    let live = true;
    loadAccess().then(
      (a) => live && setAccess(a),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [getToken()]);
  return access;
}

function collectionGrant(access: Access, collection: string): Grant | 'all' | undefined {
  if (access.admin) return 'all';
  if (ADMIN_ONLY_COLLECTIONS.has(collection)) return undefined;
  const perms = access.collection_permissions;
  if (!perms) return 'all';
  return Object.hasOwn(perms, collection) ? perms[collection] : Object.hasOwn(perms, '*') ? perms['*'] : undefined;
}

/** True when the key may read (or write) records of the collection. */
export function canUseCollection(access: Access | null, collection: string, mode: Mode): boolean {
  if (!access) return false;
  const grant = collectionGrant(access, collection);
  return grant === 'all' || grant?.[mode] === true;
}

/** The fields the key may write in the collection; undefined when it may write every field. */
export function writableFields(access: Access | null, collection: string): string[] | undefined {
  if (!access) return undefined;
  const grant = collectionGrant(access, collection);
  return grant === 'all' ? undefined : grant?.writable_fields;
}

/** The collections a restricted key is granted by name (an admin lists them from the server instead). */
export function grantedCollections(access: Access): string[] {
  return Object.keys(access.collection_permissions ?? {}).filter((c) => c !== '*');
}

/** True when the key may read (or write) the key-value store, and `key` when given. */
export function canUseKv(access: Access | null, mode: Mode, key?: string): boolean {
  if (!access) return false;
  if (access.admin) return true;
  const kv = access.kv_permissions;
  if (!kv) return access.collection_permissions === undefined;
  if (mode === 'read' ? kv.read === false : kv.write !== true) return false;
  if (key === undefined || !kv.prefixes) return true;
  return kv.prefixes.some((p) => key.startsWith(p));
}

/** The title to put on a control the key may not use, saying why it is disabled. */
export const NOT_ALLOWED = 'This API key may not do this';
