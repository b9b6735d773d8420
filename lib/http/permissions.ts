/**
 * Collection permissions of non-admin keys. A key without
 * `collection_permissions` may use every collection; with them, only the
 * listed ones (or `*`), for the listed operations, and only the writable
 * fields when those are set.
 */
import { Forbidden } from '../errors.js';
import type { Principal } from './context.js';

export function checkCollectionAccess(p: Principal, collection: string, mode: 'read' | 'write', fields?: string[]): void {
  if (p.admin) return;
  const perms = p.key.collection_permissions;
  if (!perms) return;
  const perm = Object.hasOwn(perms, collection) ? perms[collection] : Object.hasOwn(perms, '*') ? perms['*'] : undefined;
  if (!perm) throw new Forbidden(`This API key has no access to collection '${collection}'`);
  if (mode === 'read' && !perm.read) throw new Forbidden(`This API key may not read collection '${collection}'`);
  if (mode === 'write' && !perm.write) throw new Forbidden(`This API key may not write collection '${collection}'`);
  if (mode === 'write' && fields && perm.writable_fields) {
    const allowed = new Set(perm.writable_fields);
    const denied = fields.filter((f) => f !== 'id' && !allowed.has(f));
    if (denied.length > 0) {
      throw new Forbidden(`Fields not writable with this API key in '${collection}': ${denied.join(', ')}`);
    }
  }
}
