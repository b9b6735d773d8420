/**
 * Keeps long-lived connections (WebSocket, SSE) honest about their
 * credentials. Each open connection is registered with the token grant it
 * was opened with; the watch ends it (the connection sends a final error and
 * closes) once the token expires or the key is revoked or rotated, and tells
 * it when the key record changed but stays valid (permissions, admin flag),
 * so it can drop subscriptions the key may not read.
 *
 * Two triggers: a commit whose effects touch keys (acted on at once), and one
 * unref'd timer per server that re-checks every connection every 250 ms of
 * real time against the injectable clock, so token expiry (and ManualClock
 * advances) are noticed within a second. The timer runs only while
 * connections are open.
 */
import { toDbError, type DbError } from '../../errors.js';
import type { ApiKeyRecord, LoggedBatch } from '../../engine/index.js';
import type { TokenService } from './tokens.js';
import type { Principal, TokenGrant } from './principal.js';

/** How often open connections are re-checked against the clock (real time). */
export const CREDENTIAL_CHECK_MS = 250;

export interface WatchedConnection {
  readonly grant: TokenGrant;
  /** Credentials gone (expired, revoked, rotated): send a final error and close. Called at most once, after removal. */
  end(err: DbError): void;
  /** The key record changed and is still valid: re-check what the connection holds against `principal`. */
  keyChanged(principal: Principal): void;
}

/** The engine as the watch uses it: commit notices, key records and the clock. */
export interface CredentialEngine {
  onCommit(listener: (batch: LoggedBatch) => void): void;
  readonly keys: { get(id: string): ApiKeyRecord | undefined };
  now(): number;
}

export class CredentialWatch {
  /** Each open connection and the key record it was last checked against. */
  private readonly open = new Map<WatchedConnection, ApiKeyRecord>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly engine: CredentialEngine,
    private readonly tokens: TokenService,
    private readonly intervalMs = CREDENTIAL_CHECK_MS,
  ) {
    engine.onCommit((batch) => {
      if (this.open.size > 0 && touchesKeys(batch)) this.checkAll();
    });
  }

  /** Starts watching a connection authenticated as `principal`. */
  add(connection: WatchedConnection, principal: Principal): void {
    this.open.set(connection, principal.key);
    if (!this.timer) {
      this.timer = setInterval(() => this.checkAll(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Stops watching (the connection closed for any reason). Idempotent. */
  remove(connection: WatchedConnection): void {
    this.open.delete(connection);
    if (this.open.size === 0) this.stop();
  }

  /** Number of connections watched (for tests and health). */
  get size(): number {
    return this.open.size;
  }

  /**
   * The connection's caller as of now, for its next request. Calls
   * `keyChanged` first when the key record changed since the last check.
   * Throws Unauthorized (expired, revoked) without ending the connection,
   * so the caller can refuse the request in its own final frame.
   */
  current(connection: WatchedConnection): Principal {
    const principal = this.tokens.principalFor(connection.grant);
    if (this.open.has(connection) && this.open.get(connection) !== principal.key) {
      this.open.set(connection, principal.key);
      connection.keyChanged(principal);
    }
    return principal;
  }

  /**
   * True while the connection may still receive: the cheap path (same key
   * record, token unexpired) costs a look-up and a clock read, so it runs
   * before every notification. Otherwise re-checks fully, ending the
   * connection when its credentials are gone.
   */
  verify(connection: WatchedConnection): boolean {
    const seen = this.open.get(connection);
    if (seen === undefined) return false;
    const { grant } = connection;
    if (seen === this.engine.keys.get(grant.keyId) && this.engine.now() < grant.expMs) return true;
    try {
      this.current(connection);
      return this.open.has(connection);
    } catch (err) {
      this.remove(connection);
      connection.end(toDbError(err));
      return false;
    }
  }

  /** Stops the timer; connections are closed by their transports. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private checkAll(): void {
    for (const connection of [...this.open.keys()]) this.verify(connection);
  }
}

function touchesKeys(batch: LoggedBatch): boolean {
  return batch.effects.some((e) => e.kind === 'keyPut' || e.kind === 'keyDelete');
}
