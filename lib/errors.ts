/**
 * The one error hierarchy of EddyDB and its status table.
 *
 * Domain code throws a `DbError` subclass; only the transports (lib/http)
 * turn it into a wire body. A plain `Error` reaching a transport is a bug and
 * is reported as INTERNAL with a generic message (the stack goes to the log).
 *
 * | code              | HTTP | typical source                                        |
 * |-------------------|------|-------------------------------------------------------|
 * | NOT_PRIMARY       | 307  | a write sent to a cluster's replica (to the primary)  |
 * | INVALID_INPUT     | 400  | malformed body, unknown operator, schema violation    |
 * | UNAUTHORIZED      | 401  | missing/malformed/expired token, bad API key          |
 * | PAYMENT_REQUIRED  | 402  | an LLM provider account that cannot pay               |
 * | FORBIDDEN         | 403  | non-admin key on admin route, non-writable fields     |
 * | NOT_FOUND         | 404  | collection, record, transaction, route missing        |
 * | METHOD_NOT_ALLOWED| 405  | known path, wrong method                              |
 * | REQUEST_TIMEOUT   | 408  | the client sent its request too slowly                |
 * | CONFLICT          | 409  | duplicate id, unique constraint, commit conflict      |
 * | PAYLOAD_TOO_LARGE | 413  | body or batch size limits                             |
 * | URI_TOO_LONG      | 414  | a path parameter past the router's length limit       |
 * | UNSUPPORTED_MEDIA | 415  | a content type we cannot decode                       |
 * | RATE_LIMITED      | 429  | per-key request quota, failed token exchanges         |
 * | HEADERS_TOO_LARGE | 431  | request headers past the HTTP parser's size limit     |
 * | INTERNAL          | 500  | any non-DbError throw, i.e. a bug                     |
 * | NOT_IMPLEMENTED   | 501  | a protocol message this server does not serve yet     |
 * | UPSTREAM_FAILED   | 502  | LLM provider or outbound HTTP failure                 |
 * | UNAVAILABLE       | 503  | read-only (log failure), overload, starting, shutdown |
 * | TIMEOUT           | 504  | time budget exceeded                                  |
 *
 * A failure with more to say than a message is a typed value (Overloaded,
 * RateLimited, TransactionConflict, ProviderFailed, StepFailed, SlowConsumer):
 * it carries its facts as fields, and lib/http/wire/error-body.ts alone decides
 * how they look on each transport (body members, headers, frames).
 */

export type ErrorCode =
  | 'NOT_PRIMARY'
  | 'INVALID_INPUT'
  | 'UNAUTHORIZED'
  | 'PAYMENT_REQUIRED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TIMEOUT'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'URI_TOO_LONG'
  | 'UNSUPPORTED_MEDIA'
  | 'RATE_LIMITED'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL'
  | 'NOT_IMPLEMENTED'
  | 'UPSTREAM_FAILED'
  | 'UNAVAILABLE'
  | 'TIMEOUT';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  NOT_PRIMARY: 307,
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  UPSTREAM_FAILED: 502,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
};

/** Messages that clients match on verbatim. Specs assert them. */
export const MESSAGES = {
  recordNotFound: 'Record not found',
  recordDeleted: 'Record has been deleted',
  collectionNotFound: 'Collection not found',
  collectionNameRequired: 'Collection name is required',
  invalidCollectionName: 'Invalid collection name',
  transactionNotFound: 'Transaction not found',
  transactionExpired: 'Transaction has expired',
  invalidIsolationLevel: 'Invalid isolation level',
  missingFieldType: "missing field 'field_type'",
  schemaValidationFailed: 'Schema validation failed',
  adminRequired: 'Admin permission required',
  readOnly: 'Database is read-only after a storage failure',
  tokenExpired: 'Token has expired',
  keyRevoked: 'API key has been revoked',
} as const;

/** One violated constraint, as in the schema-validation body of product.md. */
export interface ValidationDetail {
  field: string;
  constraint: string;
  expected?: unknown;
  actual?: unknown;
  message: string;
}

export abstract class DbError extends Error {
  abstract readonly code: ErrorCode;
  /** Structured details rendered as `details` in the body. */
  readonly details?: unknown;

  constructor(message: string, opts: { details?: unknown; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    if (opts.details !== undefined) this.details = opts.details;
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

export class InvalidInput extends DbError {
  readonly code = 'INVALID_INPUT' as const;
}
export class Unauthorized extends DbError {
  readonly code = 'UNAUTHORIZED' as const;
}
export class PaymentRequired extends DbError {
  readonly code = 'PAYMENT_REQUIRED' as const;
}
export class Forbidden extends DbError {
  readonly code = 'FORBIDDEN' as const;
}
export class NotFound extends DbError {
  readonly code = 'NOT_FOUND' as const;
}
export class MethodNotAllowed extends DbError {
  readonly code = 'METHOD_NOT_ALLOWED' as const;
}
export class RequestTimeout extends DbError {
  readonly code = 'REQUEST_TIMEOUT' as const;
}
export class Conflict extends DbError {
  readonly code = 'CONFLICT' as const;
}
export class PayloadTooLarge extends DbError {
  readonly code = 'PAYLOAD_TOO_LARGE' as const;
}
export class UriTooLong extends DbError {
  readonly code = 'URI_TOO_LONG' as const;
}
export class UnsupportedMedia extends DbError {
  readonly code = 'UNSUPPORTED_MEDIA' as const;
}
export class HeadersTooLarge extends DbError {
  readonly code = 'HEADERS_TOO_LARGE' as const;
}
export class Internal extends DbError {
  readonly code = 'INTERNAL' as const;
}
export class NotImplemented extends DbError {
  readonly code = 'NOT_IMPLEMENTED' as const;
}
export class UpstreamFailed extends DbError {
  readonly code = 'UPSTREAM_FAILED' as const;
}
export class Unavailable extends DbError {
  readonly code = 'UNAVAILABLE' as const;
}

/**
 * A write reached a replica of a cluster (307): `primaryUrl` is the primary's
 * advertised URL; the answer's Location is it plus the request's path.
 */
export class NotPrimary extends DbError {
  readonly code = 'NOT_PRIMARY' as const;
  constructor(readonly primaryUrl: string) {
    super(`This node is a replica of the cluster: send writes to the primary at ${primaryUrl}`);
  }
}
export class Timeout extends DbError {
  readonly code = 'TIMEOUT' as const;
}

/**
 * A request or quota limit was reached (429). `retryAfter` is whole seconds;
 * `limit`, `remaining` and `resetAt` (epoch seconds) are the window of a
 * per-key quota, absent for limits without one (failed token exchanges).
 */
export class RateLimited extends DbError {
  readonly code = 'RATE_LIMITED' as const;
  readonly retryAfter?: number;
  readonly limit?: number;
  readonly remaining?: number;
  readonly resetAt?: number;

  constructor(
    message: string,
    opts: {
      retryAfter?: number;
      limit?: number;
      remaining?: number;
      resetAt?: number;
      details?: unknown;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: opts.cause, details: opts.details });
    if (opts.retryAfter !== undefined) this.retryAfter = opts.retryAfter;
    if (opts.limit !== undefined) this.limit = opts.limit;
    if (opts.remaining !== undefined) this.remaining = opts.remaining;
    if (opts.resetAt !== undefined) this.resetAt = opts.resetAt;
  }
}

/** Too much concurrent work of one kind (the batch gate's 503): `active` of `max` slots are taken. */
export class Overloaded extends DbError {
  readonly code = 'UNAVAILABLE' as const;
  constructor(
    message: string,
    readonly active: number,
    readonly max: number,
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

/** One record a transaction's commit found changed since the transaction observed it. */
export interface TxConflictEntry {
  readonly collection: string;
  readonly id?: string;
  readonly reason: string;
}

/** A commit refused by validation (409): nothing was applied, and retrying the transaction may succeed. */
export class TransactionConflict extends Conflict {
  constructor(
    message: string,
    readonly transactionId: string,
    readonly conflicts: readonly TxConflictEntry[],
  ) {
    super(message);
  }
}

/**
 * A lifecycle action refused in the record's current state (409): which
 * record, what was asked, the state it is in and the actions that state allows.
 */
export class InvalidTransition extends Conflict {
  constructor(
    readonly resource: string,
    readonly id: string,
    readonly action: string,
    readonly current: string,
    readonly allowed: readonly string[],
  ) {
    super(
      `Cannot ${action} ${resource} '${id}': it is ${current}; ` +
        (allowed.length > 0
          ? `from ${current} the allowed actions are ${allowed.join(', ')}`
          : `no action is allowed from ${current}`),
    );
  }
}

/** How an LLM or embedding provider failed (product.md, "classified provider body"). */
export type ProviderErrorKind =
  | 'provider_not_configured'
  | 'provider_request_error'
  | 'provider_billing'
  | 'provider_rate_limited'
  | 'provider_auth_failed'
  | 'provider_permission_denied'
  | 'provider_unavailable'
  | 'provider_unreachable';

const PROVIDER_CODES: Record<ProviderErrorKind, ErrorCode> = {
  provider_not_configured: 'INVALID_INPUT',
  provider_request_error: 'INVALID_INPUT',
  provider_billing: 'PAYMENT_REQUIRED',
  provider_rate_limited: 'RATE_LIMITED',
  provider_auth_failed: 'UPSTREAM_FAILED',
  provider_permission_denied: 'UPSTREAM_FAILED',
  provider_unavailable: 'UPSTREAM_FAILED',
  provider_unreachable: 'UPSTREAM_FAILED',
};

/**
 * A provider failure, classified. The status follows the kind: a provider's
 * 401/403 is a 502 here, since 401/403 always mean the caller's own token.
 * `providerStatus` is the provider's HTTP status, null when it never answered.
 */
export class ProviderFailed extends DbError {
  readonly code: ErrorCode;
  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    readonly provider: string,
    readonly providerStatus: number | null,
    readonly retryAfterSecs?: number,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.code = PROVIDER_CODES[kind];
  }
}

/**
 * `provider_not_configured` where the contract answers 404 instead of 400:
 * GET /api/chat_models/{provider} (product.md, error_kind table).
 */
export class ProviderNotListed extends ProviderFailed {
  override readonly code: ErrorCode = 'NOT_FOUND';
}

/**
 * A stored function's step failed: which step (`index`, `type`) and why.
 * Status, message and details are the cause's.
 */
export class StepFailed extends DbError {
  readonly code: ErrorCode;
  constructor(
    readonly index: number,
    readonly type: string,
    cause: unknown,
  ) {
    const c = toDbError(cause);
    super(c.message, { cause, details: c.details });
    this.code = c.code;
  }
}

/** A WebSocket upgrade asking for a protocol version we do not speak; RFC 6455 4.4 has the answer name ours. */
export class WsVersionRefused extends InvalidInput {
  constructor(
    message: string,
    readonly supportedVersions: string,
  ) {
    super(message);
  }
}

/** A subscription ended because its caller lost a right it needs; the status is the cause's. */
export class SubscriptionEnded extends DbError {
  readonly code: ErrorCode;
  constructor(message: string, cause: DbError) {
    super(message, { cause });
    this.code = cause.code;
  }
}

/**
 * A request the server cannot judge yet because it is still starting (its
 * admin key is not stored yet): 503 with Retry-After, so that a client
 * retries instead of taking it for a refusal.
 */
export class Starting extends DbError {
  readonly code = 'UNAVAILABLE' as const;
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

/** A subscriber that stopped reading: more than its queue allows is unsent, so its stream is dropped. */
export class SlowConsumer extends DbError {
  readonly code = 'UNAVAILABLE' as const;
}

/**
 * A write refused because the engine is read-only after a storage failure.
 * An expected 503, not a bug: the engine logs the cause once and counts
 * refusals into a periodic summary, so transports do not log each one.
 */
export class ReadOnlyRefusal extends Unavailable {}

/**
 * Thrown only during recovery: a checksum or framing failure in the middle of
 * a file. It stops startup with the file and byte offset and never reaches a
 * client.
 */
export class Corruption extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`corruption in ${file} at byte ${offset}: ${reason}`);
    this.name = 'Corruption';
  }
}

/** A schema violation: 400 with `{error, details: [...]}`. */
export class SchemaViolation extends InvalidInput {
  constructor(readonly violations: ValidationDetail[]) {
    super(MESSAGES.schemaValidationFailed + ': ' + violations.map((v) => v.message).join('; '), {
      details: violations,
    });
  }
}

/** Wraps anything that is not a DbError as INTERNAL, keeping it as `cause`. */
export function toDbError(err: unknown): DbError {
  if (err instanceof DbError) return err;
  return new Internal('Internal server error', { cause: err });
}
