/**
 * API keys. A key is `eddy_<id>_<secret>`; only the SHA-256 of the whole key
 * is stored, and verification compares hashes in constant time. Keys carry
 * an admin flag, optional per-collection permissions (read, write,
 * writable fields) and an optional key-value grant (read, write, key
 * prefixes). The admin key comes from the environment or is generated on
 * first start. Enforcing permissions is the HTTP layer's job.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidInput, NotFound } from '../../errors.js';
import type { EngineCore } from '../core.js';
import { validateCollectionName } from '../collections/names.js';
import { validateKvKey } from '../kv/kv.js';
import { checkLimit, MAX_FIELD_NAMES, MAX_KV_PREFIXES } from '../input/limits.js';
import { rejectUnknownMembers } from '../input/members.js';
import type { ApiKeyRecord, CollectionPermission, KvPermission } from '../write/state.js';
import { isPlainObject } from '../values/index.js';

export const ADMIN_KEY_ID = 'admin';

/** The stored form of an API key's secret (not to be confused with values' hashKey, a grouping key for values). */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export interface NewKeyRequest {
  name: string;
  admin: boolean;
  collection_permissions?: Record<string, CollectionPermission>;
  kv_permissions?: KvPermission;
  rate_limit?: number;
}

/** Public view of a key: never the hash or the secret. */
export function describeKey(record: ApiKeyRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: record.id,
    name: record.name,
    admin: record.admin,
    created_at: record.created_at,
  };
  if (record.collection_permissions) out.collection_permissions = record.collection_permissions;
  if (record.kv_permissions) out.kv_permissions = record.kv_permissions;
  if (record.rate_limit !== undefined) out.rate_limit = record.rate_limit;
  return out;
}

export function parseKeyRequest(body: unknown): NewKeyRequest {
  if (!isPlainObject(body)) throw new InvalidInput('Key body must be a JSON object');
  const allowed = new Set(['name', 'admin', 'collection_permissions', 'kv_permissions', 'rate_limit']);
  rejectUnknownMembers(body, allowed, 'key body', null);
  const name = body.name ?? 'key';
  if (typeof name !== 'string' || name.length > 200)
    throw new InvalidInput("'name' must be a string of at most 200 characters");
  const admin = body.admin ?? false;
  if (typeof admin !== 'boolean') throw new InvalidInput("'admin' must be a boolean");
  const out: NewKeyRequest = { name, admin };
  if (body.rate_limit !== undefined && body.rate_limit !== null) {
    if (typeof body.rate_limit !== 'number' || !Number.isInteger(body.rate_limit) || body.rate_limit < 0) {
      throw new InvalidInput("'rate_limit' must be a non-negative integer (requests per window, 0 = unlimited)");
    }
    out.rate_limit = body.rate_limit;
  }
  if (body.collection_permissions !== undefined && body.collection_permissions !== null) {
    out.collection_permissions = parsePermissions(body.collection_permissions);
  }
  if (body.kv_permissions !== undefined && body.kv_permissions !== null)
    out.kv_permissions = parseKvPermissions(body.kv_permissions);
  return out;
}

/**
 * Parses a `kv_permissions` grant: `{read?, write?, prefixes?}` (read
 * defaults to true, write to false, as for collections) or the short form
 * `["read", "write"]`. Throws InvalidInput naming `kv_permissions`.
 */
function parseKvPermissions(raw: unknown): KvPermission {
  const where = 'kv_permissions';
  if (Array.isArray(raw)) {
    if (!raw.every((x) => x === 'read' || x === 'write'))
      throw new InvalidInput(`'${where}' as an array may hold only "read" and "write"`);
    return { read: raw.includes('read'), write: raw.includes('write') };
  }
  if (!isPlainObject(raw)) throw new InvalidInput(`'${where}' must be an object {read, write, prefixes?} or an array`);
  rejectUnknownMembers(raw, ['read', 'write', 'prefixes'], `'${where}'`);
  const read = raw.read ?? true,
    write = raw.write ?? false;
  if (typeof read !== 'boolean' || typeof write !== 'boolean')
    throw new InvalidInput(`'${where}.read' and '${where}.write' must be booleans`);
  if (raw.prefixes === undefined || raw.prefixes === null) return { read, write };
  const list = raw.prefixes;
  if (!Array.isArray(list) || list.length === 0)
    throw new InvalidInput(
      `'${where}.prefixes' must be a non-empty array of key prefixes (omit it for the whole store)`,
    );
  checkLimit(list.length, MAX_KV_PREFIXES, `${where}.prefixes`, 'prefixes');
  const prefixes = list.map((prefix, index) => {
    try {
      return validateKvKey(prefix);
    } catch (err) {
      throw new InvalidInput(`'${where}.prefixes[${index}]': ${(err as Error).message}`);
    }
  });
  return { read, write, prefixes };
}

function parsePermissions(raw: unknown): Record<string, CollectionPermission> {
  if (!isPlainObject(raw))
    throw new InvalidInput("'collection_permissions' must be an object keyed by collection name");
  const out: Record<string, CollectionPermission> = Object.create(null);
  for (const [collection, permissions] of Object.entries(raw)) {
    if (collection !== '*') validateCollectionName(collection);
    let perm: CollectionPermission;
    if (Array.isArray(permissions)) {
      if (!permissions.every((x) => x === 'read' || x === 'write'))
        throw new InvalidInput(`Permissions for '${collection}' must be "read" and/or "write"`);
      perm = { read: permissions.includes('read'), write: permissions.includes('write') };
    } else if (isPlainObject(permissions)) {
      for (const key of Object.keys(permissions))
        if (!['read', 'write', 'writable_fields'].includes(key))
          throw new InvalidInput(`Unknown permission '${key}' for '${collection}'`);
      const read = permissions.read ?? true,
        write = permissions.write ?? false;
      if (typeof read !== 'boolean' || typeof write !== 'boolean')
        throw new InvalidInput(`'read' and 'write' for '${collection}' must be booleans`);
      perm = { read, write };
      if (permissions.writable_fields !== undefined) {
        if (
          !Array.isArray(permissions.writable_fields) ||
          !permissions.writable_fields.every((f) => typeof f === 'string')
        ) {
          throw new InvalidInput(`'writable_fields' for '${collection}' must be an array of field names`);
        }
        checkLimit(
          permissions.writable_fields.length,
          MAX_FIELD_NAMES,
          `collection_permissions.${collection}.writable_fields`,
          'fields',
        );
        perm = { ...perm, writable_fields: [...permissions.writable_fields] as string[] };
      }
    } else
      throw new InvalidInput(
        `Permissions for '${collection}' must be an object {read, write, writable_fields?} or an array`,
      );
    out[collection] = perm;
  }
  return { ...out };
}

export class ApiKeys {
  constructor(private readonly db: EngineCore) {}

  /** Creates a key; returns the secret (shown once) and its public description. */
  async create(req: NewKeyRequest): Promise<{ key: string; record: ApiKeyRecord }> {
    const id = randomBytes(9).toString('base64url');
    const key = `eddy_${id}_${randomBytes(24).toString('base64url')}`;
    const record: ApiKeyRecord = {
      id,
      name: req.name,
      hash: hashApiKey(key),
      admin: req.admin,
      created_at: new Date(this.db.now()).toISOString(),
      ...(req.collection_permissions ? { collection_permissions: req.collection_permissions } : {}),
      ...(req.kv_permissions ? { kv_permissions: req.kv_permissions } : {}),
      ...(req.rate_limit !== undefined ? { rate_limit: req.rate_limit } : {}),
    };
    await this.db.write(() => ({ effects: [{ kind: 'keyPut', key: record }], result: undefined }));
    return { key, record };
  }

  /**
   * Replaces a key's name, admin flag, collection permissions and rate limit
   * with `req` (members absent from the request take create's defaults); the
   * id, secret and created_at stay. Tokens of the key stay valid and carry
   * the new rights from their next request. NotFound for an unknown id;
   * InvalidInput for the bootstrap admin key, which only EDDYDB_ADMIN_KEY changes.
   */
  async update(id: string, req: NewKeyRequest): Promise<ApiKeyRecord> {
    if (id === ADMIN_KEY_ID)
      throw new InvalidInput('The bootstrap admin key cannot be changed; set EDDYDB_ADMIN_KEY to rotate it');
    return this.db.write((view) => {
      const current = view.key(id);
      if (!current) throw new NotFound(`API key '${id}' not found`);
      // parseKeyRequest sets optional members only when given, so a spread drops what the request leaves out.
      const record: ApiKeyRecord = { ...req, id, hash: current.hash, created_at: current.created_at };
      return { effects: [{ kind: 'keyPut', key: record }], result: record };
    });
  }

  /** Ensures the admin key hashes to `secret` (env-provided or generated). */
  async ensureAdmin(secret: string): Promise<void> {
    const hash = hashApiKey(secret);
    const current = this.db.state.keys.get(ADMIN_KEY_ID);
    if (current && current.hash === hash && current.admin) return;
    const record: ApiKeyRecord = {
      id: ADMIN_KEY_ID,
      name: 'admin',
      hash,
      admin: true,
      created_at: new Date(this.db.now()).toISOString(),
    };
    await this.db.write(() => ({ effects: [{ kind: 'keyPut', key: record }], result: undefined }));
  }

  hasAdmin(): boolean {
    return this.db.state.keys.has(ADMIN_KEY_ID);
  }

  list(): ApiKeyRecord[] {
    return [...this.db.state.keys.values()];
  }

  get(id: string): ApiKeyRecord | undefined {
    return this.db.state.keys.get(id);
  }

  async revoke(id: string): Promise<void> {
    if (id === ADMIN_KEY_ID)
      throw new InvalidInput('The bootstrap admin key cannot be revoked; set EDDYDB_ADMIN_KEY to rotate it');
    await this.db.write((view) => {
      if (!view.key(id)) throw new NotFound(`API key '${id}' not found`);
      return { effects: [{ kind: 'keyDelete', id }], result: undefined };
    });
  }

  /** The key record whose hash matches `secret`, compared in constant time; undefined otherwise. */
  verify(secret: string): ApiKeyRecord | undefined {
    const want = Buffer.from(hashApiKey(secret), 'hex');
    let found: ApiKeyRecord | undefined;
    for (const record of this.db.state.keys.values()) {
      if (timingSafeEqual(Buffer.from(record.hash, 'hex'), want)) found = record;
    }
    return found;
  }
}
