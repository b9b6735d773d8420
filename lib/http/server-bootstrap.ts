/**
 * What a server writes into its data at startup: the admin key (the
 * configured one, stored when missing; the stored one; or a new one,
 * announced once and saved to `admin.key` in the data directory, a
 * memory-only server only announcing it) and the chat messages' index. On a
 * cluster the primary does this: replicas get them through the cluster's log.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Conflict } from '../errors.js';
import { CHAT_MESSAGES_COLLECTION } from '../chat/index.js';
import { nodeFs, type StorageFs } from '../engine/index.js';
import type { AdminKeySource } from './log/startup-summary.js';

/** What of the server's config the admin key needs (ServerConfig has it). */
export type AdminKeyConfig = {
  readonly adminKey?: string;
  readonly announce?: (msg: string) => void;
  readonly fs?: StorageFs;
} & ({ readonly memory: true } | { readonly memory?: false; readonly dataDir: string });

/** What of the database the bootstrap writes through (the engine's Database has it). */
export interface BootstrapTarget {
  readonly keys: { hasAdmin(): boolean; ensureAdmin(key: string): Promise<unknown> };
  readonly indexes: { indexes(collection: string): ReadonlyMap<string, unknown> };
  readonly collections: { createIndex(collection: string, def: { field: string; type: 'hash' }): Promise<unknown> };
}

export async function bootstrapAdmin(db: BootstrapTarget, config: AdminKeyConfig): Promise<AdminKeySource> {
  if (config.adminKey) {
    await db.keys.ensureAdmin(config.adminKey);
    return 'configured';
  }
  if (db.keys.hasAdmin()) return 'stored';
  const key = `eddy_admin_${randomBytes(24).toString('base64url')}`;
  await db.keys.ensureAdmin(key);
  const announce = config.announce ?? ((m: string) => process.stdout.write(m + '\n'));
  if (config.memory) {
    announce(`Generated admin API key (shown once; memory only, not saved):\n  ${key}`);
    return 'generated';
  }
  const file = path.join(config.dataDir, 'admin.key');
  await (config.fs ?? nodeFs).writeFile(file, key + '\n');
  announce(`Generated admin API key (shown once, also saved to ${file}):\n  ${key}`);
  return 'generated';
}

/**
 * A hash index on `chat_id` in the chat messages collection, unless one exists (an admin may have made or dropped it).
 */
export async function indexChatMessages(db: BootstrapTarget): Promise<void> {
  if (db.indexes.indexes(CHAT_MESSAGES_COLLECTION).has('chat_id')) return;
  try {
    await db.collections.createIndex(CHAT_MESSAGES_COLLECTION, { field: 'chat_id', type: 'hash' });
  } catch (err) {
    // Made meanwhile by a concurrent first message: what we wanted.
    if (!(err instanceof Conflict)) throw err;
  }
}
