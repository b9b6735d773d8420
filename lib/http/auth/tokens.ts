/**
 * Tokens: API keys are exchanged for short-lived HS256 JWTs (jose). Each
 * request's bearer token is verified against the injectable clock, and the
 * key it names is looked up again, so revoking a key takes effect at once.
 * The token also carries a keyed fingerprint of the key's hash, so rotating
 * the admin key (same id, new secret) invalidates its earlier tokens too.
 * Long-lived connections keep the verified TokenGrant and re-check it with
 * `principalFor` on every request (no signature work, only clock and key look-ups).
 */
import { createHmac } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { InvalidInput, MESSAGES, Unauthorized } from '../../errors.js';
import type { ApiKeyRecord } from '../../engine/index.js';
import type { Principal, TokenGrant } from './principal.js';

/** Verified tokens, so each request does not pay jose's async verification again. */
const CACHE_LIMIT = 10_000;
const BEARER = 'Bearer ';

/** The engine as tokens use it: key records, the signing secret, the clock and the token lifetime setting. */
export interface TokenEngine {
  readonly keys: {
    /** The key whose secret this is, if any. */
    verify(secret: string): ApiKeyRecord | undefined;
    get(id: string): ApiKeyRecord | undefined;
  };
  readonly secrets: { readonly jwtKey: Uint8Array };
  now(): number;
  settings(): { readonly token_ttl_secs: number };
}

export class TokenService {
  private readonly verified = new Map<string, TokenGrant>();
  /** The last header `cached` answered, with its token's grant (one of `verified`). */
  private lastHeader: { readonly header: string; readonly token: string; readonly grant: TokenGrant } | undefined;
  /** Key records are immutable and replaced on every change, so a fingerprint per record object stays right. */
  private readonly fingerprints = new WeakMap<ApiKeyRecord, string>();

  constructor(private readonly engine: TokenEngine) {}

  private get key(): Uint8Array {
    return this.engine.secrets.jwtKey;
  }

  /** Exchanges an API key for a token. 401 for an unknown key. */
  async issue(apiKey: unknown): Promise<{ token: string; expires_at: number }> {
    if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > 1024) {
      if (apiKey === undefined) throw new InvalidInput('Body must be {api_key: string}');
      throw new Unauthorized('Invalid API key');
    }
    const record = this.engine.keys.verify(apiKey);
    if (!record) throw new Unauthorized('Invalid API key');
    const now = Math.floor(this.engine.now() / 1000);
    const exp = now + this.engine.settings().token_ttl_secs;
    const token = await new SignJWT({ adm: record.admin, kfp: this.fingerprint(record) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(record.id)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.key);
    return { token, expires_at: exp };
  }

  /** Verifies an `Authorization` header value (or a bare token). 401 for anything wrong. */
  async authenticate(header: string | undefined, tokenParam?: string): Promise<Principal> {
    const known = this.cached(header);
    if (known) return known;
    let token = tokenParam;
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw new Unauthorized('Malformed Authorization header; expected "Bearer <token>"');
      token = match[1];
    }
    if (!token) throw new Unauthorized('Missing Authorization header');
    return this.principalFor(await this.verify(token));
  }

  /**
   * The caller of an `Authorization` header whose token was verified before,
   * synchronously (the common request); undefined when it must go through
   * `authenticate`. Throws what `authenticate` throws for an expired token or
   * a revoked key.
   */
  cached(header: string | undefined): Principal | undefined {
    // Most requests repeat the previous request's header: comparing strings is cheaper than hashing a token.
    const last = this.lastHeader;
    if (last !== undefined && header === last.header) return this.keyHolder(this.unexpired(last.token, last.grant));
    // A verified token holds no white space, so `Bearer <it>` is a well-formed header: no pattern to run.
    if (header === undefined || !header.startsWith(BEARER)) return undefined;
    const token = header.slice(BEARER.length);
    const hit = this.verified.get(token);
    if (!hit) return undefined;
    const principal = this.keyHolder(this.unexpired(token, hit));
    this.lastHeader = { header, token, grant: hit };
    return principal;
  }

  /**
   * The caller a verified grant stands for now, from the current key record
   * (so changed permissions or admin flag apply at once). Synchronous and
   * cheap: a clock read, a key look-up and a cached fingerprint.
   * Throws Unauthorized "Token has expired" once the engine's clock reaches the
   * token's exp, and "API key has been revoked" once the key is deleted or
   * its secret rotated.
   */
  principalFor(grant: TokenGrant): Principal {
    if (this.engine.now() >= grant.expMs) throw new Unauthorized(MESSAGES.tokenExpired);
    return this.keyHolder(grant);
  }

  /** principalFor without the clock, for a grant `unexpired` has just checked. */
  private keyHolder(grant: TokenGrant): Principal {
    const key = this.engine.keys.get(grant.keyId);
    if (!key || grant.kfp !== this.fingerprint(key)) throw new Unauthorized(MESSAGES.keyRevoked);
    return { keyId: key.id, admin: key.admin, key, grant };
  }

  /**
   * Identifies the key's current secret without revealing anything about it (the hash of a weak admin key could be
   * brute-forced).
   */
  private fingerprint(key: ApiKeyRecord): string {
    let fp = this.fingerprints.get(key);
    if (fp === undefined) {
      fp = createHmac('sha256', this.key).update(key.hash).digest('base64url').slice(0, 22);
      this.fingerprints.set(key, fp);
    }
    return fp;
  }

  /** A cached grant while its token is unexpired; forgets it and throws 401 "Token has expired" after. */
  private unexpired(token: string, grant: TokenGrant): TokenGrant {
    if (grant.expMs > this.engine.now()) return grant;
    this.verified.delete(token);
    if (this.lastHeader?.token === token) this.lastHeader = undefined;
    throw new Unauthorized(MESSAGES.tokenExpired);
  }

  /** The key id and fingerprint a valid, unexpired token names; 401 otherwise. */
  private async verify(token: string): Promise<TokenGrant> {
    const hit = this.verified.get(token);
    if (hit) return this.unexpired(token, hit);
    let sub: string | undefined;
    let kfp: unknown;
    let expMs = 0;
    try {
      const options = { algorithms: ['HS256'], currentDate: new Date(this.engine.now()) };
      const { payload } = await jwtVerify(token, this.key, options);
      if (typeof payload.exp !== 'number') throw new Unauthorized('Invalid token');
      sub = payload.sub;
      kfp = payload.kfp;
      expMs = payload.exp * 1000;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new Unauthorized(MESSAGES.tokenExpired);
      if (err instanceof Unauthorized) throw err;
      throw new Unauthorized('Invalid token');
    }
    if (!sub || typeof kfp !== 'string') throw new Unauthorized('Invalid token');
    if (this.verified.size >= CACHE_LIMIT) this.verified.delete(this.verified.keys().next().value!);
    const verified: TokenGrant = { keyId: sub, kfp, expMs };
    this.verified.set(token, verified);
    return verified;
  }
}
