/**
 * The one error hierarchy of EddyDB and its status table.
 *
 * Domain code throws a `DbError` subclass; only the transports (lib/http)
 * turn it into a wire body. A plain `Error` reaching a transport is a bug and
 * is reported as INTERNAL with a generic message (the stack goes to the log).
 *
 * | code              | HTTP | typical source                                        |
 * |-------------------|------|-------------------------------------------------------|
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
 * | UPSTREAM_FAILED   | 502  | LLM provider or outbound HTTP failure                 |
 * | UNAVAILABLE       | 503  | read-only after a log failure, overload, shutdown     |
 * | TIMEOUT           | 504  | time budget exceeded                                  |
 */

export type ErrorCode =
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
  | 'UPSTREAM_FAILED'
  | 'UNAVAILABLE'
  | 'TIMEOUT';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
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
  /** Extra top-level body members (e.g. the 503 batch-overload counters, a 409 conflict list). */
  readonly extra?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers?: Record<string, string>;

  constructor(
    message: string,
    opts: { details?: unknown; extra?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    if (opts.details !== undefined) this.details = opts.details;
    if (opts.extra !== undefined) this.extra = opts.extra;
    if (opts.headers !== undefined) this.headers = opts.headers;
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

export class InvalidInput extends DbError { readonly code = 'INVALID_INPUT' as const; }
export class Unauthorized extends DbError { readonly code = 'UNAUTHORIZED' as const; }
export class PaymentRequired extends DbError { readonly code = 'PAYMENT_REQUIRED' as const; }
export class Forbidden extends DbError { readonly code = 'FORBIDDEN' as const; }
export class NotFound extends DbError { readonly code = 'NOT_FOUND' as const; }
export class MethodNotAllowed extends DbError { readonly code = 'METHOD_NOT_ALLOWED' as const; }
export class RequestTimeout extends DbError { readonly code = 'REQUEST_TIMEOUT' as const; }
export class Conflict extends DbError { readonly code = 'CONFLICT' as const; }
export class PayloadTooLarge extends DbError { readonly code = 'PAYLOAD_TOO_LARGE' as const; }
export class UriTooLong extends DbError { readonly code = 'URI_TOO_LONG' as const; }
export class UnsupportedMedia extends DbError { readonly code = 'UNSUPPORTED_MEDIA' as const; }
export class RateLimited extends DbError { readonly code = 'RATE_LIMITED' as const; }
export class HeadersTooLarge extends DbError { readonly code = 'HEADERS_TOO_LARGE' as const; }
export class Internal extends DbError { readonly code = 'INTERNAL' as const; }
export class UpstreamFailed extends DbError { readonly code = 'UPSTREAM_FAILED' as const; }
export class Unavailable extends DbError { readonly code = 'UNAVAILABLE' as const; }
export class Timeout extends DbError { readonly code = 'TIMEOUT' as const; }

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
  constructor(readonly file: string, readonly offset: number, reason: string) {
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
