/**
 * Who is calling: the API key behind a verified token. Its own module so
 * that tokens.ts (which makes principals) and procedures/context.ts (which carries one)
 * do not import each other.
 */
import type { ApiKeyRecord } from '../../engine/index.js';

export interface Principal {
  readonly keyId: string;
  readonly admin: boolean;
  readonly key: ApiKeyRecord;
  /** The verified token the caller presented; connections re-check it for their whole life. */
  readonly grant: TokenGrant;
}

/** What a verified token names: the key, the fingerprint of its secret at issue, and the expiry (ms). */
export interface TokenGrant {
  readonly keyId: string;
  readonly kfp: string;
  readonly expMs: number;
}
