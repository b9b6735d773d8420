/**
 * The one error renderer: every failure, on every transport, is shaped here
 * from the error's type and fields (protocol.md §1.5, §3.2; product.md).
 *
 * - HTTP `{status, headers, body}`: `{error}` (with `details`) for most 4xx,
 *   `{code, message}` for 401 (plus `error`), 405, 429 and 5xx, each with
 *   `request_id` (the X-Request-Id of the answer, which every log line of
 *   the request names; clients read the members they know). Internal
 *   errors get a generic message plus the request id; the stack goes to the
 *   log. Typed failures have bodies of their own: the batch overload counters,
 *   a transaction conflict's records, an invalid lifecycle move (current
 *   status and allowed actions), a classified provider failure, a
 *   function step failure; rate limits and overloads add `Retry-After`.
 * - SSE: an `event: error` frame whose data is the HTTP body.
 * - WebSocket: `{type: "Error", code: <status>, message, messageId?}`, and
 *   `request_id` when it answers a message.
 */
import {
  InvalidTransition,
  NotPrimary,
  Overloaded,
  ProviderFailed,
  RateLimited,
  SlowConsumer,
  Starting,
  StepFailed,
  toDbError,
  TransactionConflict,
  WsVersionRefused,
  type DbError,
} from '../../errors.js';

const CODE_MESSAGE_STATUSES = new Set([401, 405, 429]);

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** `url` (the request's path and query) completes a redirect's Location. */
export function renderError(err: unknown, requestId: string, url = ''): ErrorResponse {
  const failure: DbError = toDbError(err);
  const body = { ...errorBody(failure, requestId), request_id: requestId };
  const headers = errorHeaders(failure);
  if (failure instanceof NotPrimary) headers.Location = failure.primaryUrl.replace(/\/+$/, '') + url;
  return { status: failure.status, body, headers };
}

/** The data of an SSE `event: error` frame: the HTTP body of the same failure. */
export function sseErrorData(err: unknown, requestId: string): Record<string, unknown> {
  return errorBody(toDbError(err), requestId);
}

/** A WebSocket Error frame; `messageId` is echoed when the request carried one. */
export function wsErrorFrame(err: unknown, requestId: string, messageId?: unknown): Record<string, unknown> {
  const failure = toDbError(err);
  const body = errorBody(failure, requestId);
  const message = typeof body.error === 'string' ? body.error : String(body.message ?? failure.message);
  return { type: 'Error', code: failure.status, message, ...(messageId !== undefined ? { messageId } : {}) };
}

/** The Error frame answering a WebSocket message: wsErrorFrame with the message's request id as `request_id`. */
export function wsRequestErrorFrame(err: unknown, requestId: string, messageId?: unknown): Record<string, unknown> {
  return { ...wsErrorFrame(err, requestId, messageId), request_id: requestId };
}

function errorBody(err: DbError, requestId: string): Record<string, unknown> {
  const typed = typedBody(err);
  if (typed) return typed;
  const status = err.status;
  if (status >= 500 || CODE_MESSAGE_STATUSES.has(status)) {
    const message = err.code === 'INTERNAL' ? `Internal server error (request ${requestId})` : err.message;
    return status === 401 ? { code: status, message, error: message } : { code: status, message };
  }
  return err.details === undefined ? { error: err.message } : { error: err.message, details: err.details };
}

/** Bodies fixed by the protocol for failures that carry more than a message. */
function typedBody(err: DbError): Record<string, unknown> | undefined {
  if (err instanceof Overloaded) {
    return {
      error: err.message,
      active_operations: err.active,
      max_concurrent: err.max,
      retry_after_seconds: err.retryAfter,
    };
  }
  if (err instanceof TransactionConflict) {
    return { error: err.message, transaction_id: err.transactionId, conflicts: err.conflicts, retryable: true };
  }
  if (err instanceof InvalidTransition) {
    return { error: err.message, current_status: err.current, allowed_actions: err.allowed, action: err.action };
  }
  if (err instanceof ProviderFailed) return { error: err.message, ...providerFields(err) };
  if (err instanceof StepFailed) {
    // A Chat or Embed step whose provider failed: the classified fields are the failure's details.
    const details = err.details ?? (err.cause instanceof ProviderFailed ? providerFields(err.cause) : null);
    return { error: true, operation_index: err.index, operation_type: err.type, message: err.message, details };
  }
  if (err instanceof NotPrimary) return { error: err.message, primary_url: err.primaryUrl };
  // Streams that dropped a slow reader say so in the short form their clients read.
  if (err instanceof SlowConsumer) return { error: err.message };
  return undefined;
}

/** The classified provider failure's fields (product.md, "classified provider body"). */
function providerFields(err: ProviderFailed): Record<string, unknown> {
  return {
    error_kind: err.kind,
    provider: err.provider,
    provider_status: err.providerStatus,
    ...(err.retryAfterSecs !== undefined ? { retry_after_secs: err.retryAfterSecs } : {}),
  };
}

function errorHeaders(err: DbError): Record<string, string> {
  // A step's own 429 (the RateLimit step, a provider's rate limit) tells clients when to retry, as any 429 does
  // (protocol.md 1.8).
  if (err instanceof StepFailed && (err.cause instanceof RateLimited || err.cause instanceof ProviderFailed)) {
    return errorHeaders(err.cause);
  }
  if (err instanceof RateLimited) {
    const headers: Record<string, string> = {};
    if (err.retryAfter !== undefined) headers['Retry-After'] = String(err.retryAfter);
    if (err.limit !== undefined) headers['X-RateLimit-Limit'] = String(err.limit);
    if (err.remaining !== undefined) headers['X-RateLimit-Remaining'] = String(err.remaining);
    if (err.resetAt !== undefined) headers['X-RateLimit-Reset'] = String(err.resetAt);
    return headers;
  }
  if (err instanceof Overloaded || err instanceof Starting) return { 'Retry-After': String(err.retryAfter) };
  if (err instanceof ProviderFailed && err.retryAfterSecs !== undefined) {
    return { 'Retry-After': String(err.retryAfterSecs) };
  }
  if (err instanceof WsVersionRefused) return { 'Sec-WebSocket-Version': err.supportedVersions };
  return {};
}
