/**
 * Per-database secrets kept in the data directory (file `secrets`, mode
 * 0600): the JWT signing key and the id encryption key. Created once, on
 * first start, written atomically through StorageFs; never logged.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { StorageFs } from '../storage/fs.js';

export interface Secrets {
  readonly jwtKey: Buffer;
  readonly idKey: Buffer;
}

/** Reads `secrets`, or creates it (tmp, fsync, rename, directory fsync) on first start. */
export async function loadOrCreateSecrets(fs: StorageFs, dir: string): Promise<Secrets> {
  const file = path.join(dir, 'secrets');
  if (fs.exists(file)) {
    const raw = JSON.parse((await fs.readFile(file)).toString('utf8')) as { jwt_key: string; id_key: string };
    return { jwtKey: Buffer.from(raw.jwt_key, 'base64'), idKey: Buffer.from(raw.id_key, 'base64') };
  }
  const secrets = { jwtKey: randomBytes(32), idKey: randomBytes(32) };
  await writeSecrets(fs, dir, secrets);
  return secrets;
}

/** Writes `secrets` to `dir` (tmp, fsync, rename, directory fsync): at first start, and by a restore. */
export async function writeSecrets(fs: StorageFs, dir: string, secrets: Secrets): Promise<void> {
  const file = path.join(dir, 'secrets');
  const tmp = file + '.tmp';
  const out = await fs.openWrite(tmp);
  try {
    await out.write(
      Buffer.from(
        JSON.stringify({ jwt_key: secrets.jwtKey.toString('base64'), id_key: secrets.idKey.toString('base64') }),
      ),
    );
    await out.sync();
  } finally {
    await out.close();
  }
  await fs.rename(tmp, file);
  await fs.syncDir(dir);
}
