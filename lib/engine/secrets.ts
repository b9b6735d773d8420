/**
 * Per-database secrets kept in the data directory (file `secrets`, mode
 * 0600): the JWT signing key and the id encryption key. Created once, on
 * first start, written atomically; never logged.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';

export interface Secrets {
  readonly jwtKey: Buffer;
  readonly idKey: Buffer;
}

export function loadOrCreateSecrets(dir: string): Secrets {
  const file = path.join(dir, 'secrets');
  if (fs.existsSync(file)) {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { jwt_key: string; id_key: string };
    return { jwtKey: Buffer.from(raw.jwt_key, 'base64'), idKey: Buffer.from(raw.id_key, 'base64') };
  }
  const secrets = { jwtKey: randomBytes(32), idKey: randomBytes(32) };
  const tmp = file + '.tmp';
  const fd = fs.openSync(tmp, 'w', 0o600);
  fs.writeSync(fd, JSON.stringify({ jwt_key: secrets.jwtKey.toString('base64'), id_key: secrets.idKey.toString('base64') }));
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  return secrets;
}
