/**
 * Errors the HTTP stack raises before our Dispatcher runs, mapped onto the
 * error table of lib/errors.ts in one place: fastify's whole error-code list
 * (FASTIFY_ERRORS, checked against `fastify.errorCodes` by a spec, so an
 * upgrade that adds a code fails until it is mapped), errors node's HTTP
 * parser reports as `clientError`, and the ws library's handshake refusals.
 *
 * Client-caused errors become the matching 4xx with a message that says what
 * was wrong. Everything else (fastify set-up, plugin, hook, schema and reply
 * misuse) is a bug on our side: Internal (500), keeping the original as
 * `cause`, so the transport logs its stack.
 */
import type { FastifyErrorCodes } from 'fastify';
import {
  DbError,
  HeadersTooLarge,
  Internal,
  InvalidInput,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RequestTimeout,
  Timeout,
  UnsupportedMedia,
  UriTooLong,
  WsVersionRefused,
} from '../../errors.js';

type FastifyCode = keyof FastifyErrorCodes;
type ErrorLike = Error & { code?: string; statusCode?: number; reason?: string };
/** Maps one raised error; `bodyLimit` is the configured request body limit in bytes. */
type Mapper = (err: ErrorLike, bodyLimit: number) => DbError;

const internal: Mapper = (err) => new Internal('Internal server error', { cause: err });
const invalid: Mapper = (err) => new InvalidInput(err.message);
const bodyTooLarge: Mapper = (_err, limit) => new PayloadTooLarge(`Request body exceeds ${limit} bytes`);

/** Every code fastify exports. A code added by an upgrade does not compile until it is listed here. */
export const FASTIFY_ERRORS: Record<FastifyCode, Mapper> = {
  // Raised while serving a request, by the client's doing.
  FST_ERR_NOT_FOUND: (err) => new NotFound(err.message),
  FST_ERR_VALIDATION: invalid,
  FST_ERR_CTP_BODY_TOO_LARGE: bodyTooLarge,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new UnsupportedMedia('Unsupported Content-Type; use application/json or application/msgpack'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new InvalidInput('Request body size did not match Content-Length'),
  FST_ERR_CTP_EMPTY_JSON_BODY: invalid,
  FST_ERR_CTP_INVALID_JSON_BODY: invalid,
  FST_ERR_BAD_URL: (err) => new InvalidInput(`Malformed percent-encoding in the URL: ${err.message}`),
  FST_ERR_MAX_PARAM_LENGTH: (err) => new UriTooLong(err.message),
  FST_ERR_INVALID_URL: invalid,
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: invalid,
  FST_ERR_ROUTE_MISSING_CONTENT: invalid,
  // Raised while serving a request, by a time budget (none is configured) or a router constraint.
  FST_ERR_HANDLER_TIMEOUT: (err) => new Timeout(err.message),
  FST_ERR_ASYNC_CONSTRAINT: internal,
  // Reply and request misuse: a bug in a handler.
  FST_ERR_REP_INVALID_PAYLOAD_TYPE: internal,
  FST_ERR_REP_RESPONSE_BODY_CONSUMED: internal,
  FST_ERR_REP_READABLE_STREAM_LOCKED: internal,
  FST_ERR_REP_ALREADY_SENT: internal,
  FST_ERR_REP_SENT_VALUE: internal,
  FST_ERR_SEND_INSIDE_ONERR: internal,
  FST_ERR_SEND_UNDEFINED_ERR: internal,
  FST_ERR_BAD_STATUS_CODE: internal,
  FST_ERR_BAD_TRAILER_NAME: internal,
  FST_ERR_BAD_TRAILER_VALUE: internal,
  FST_ERR_FAILED_ERROR_SERIALIZATION: internal,
  FST_ERR_MISSING_SERIALIZATION_FN: internal,
  FST_ERR_MISSING_CONTENTTYPE_SERIALIZATION_FN: internal,
  FST_ERR_REQ_INVALID_VALIDATION_INVOCATION: internal,
  // Set-up errors: options, content-type parsers, decorators, hooks, loggers, schemas, routes, plugins, listen.
  FST_ERR_OPTIONS_NOT_OBJ: internal,
  FST_ERR_QSP_NOT_FN: internal,
  FST_ERR_SCHEMA_CONTROLLER_BUCKET_OPT_NOT_FN: internal,
  FST_ERR_SCHEMA_ERROR_FORMATTER_NOT_FN: internal,
  FST_ERR_AJV_CUSTOM_OPTIONS_OPT_NOT_OBJ: internal,
  FST_ERR_AJV_CUSTOM_OPTIONS_OPT_NOT_ARR: internal,
  FST_ERR_LISTEN_OPTIONS_INVALID: internal,
  FST_ERR_ERROR_HANDLER_NOT_FN: internal,
  FST_ERR_ERROR_HANDLER_ALREADY_SET: internal,
  FST_ERR_CTP_ALREADY_PRESENT: internal,
  FST_ERR_CTP_INVALID_TYPE: internal,
  FST_ERR_CTP_EMPTY_TYPE: internal,
  FST_ERR_CTP_INVALID_HANDLER: internal,
  FST_ERR_CTP_INVALID_PARSE_TYPE: internal,
  FST_ERR_CTP_INSTANCE_ALREADY_STARTED: internal,
  FST_ERR_DEC_ALREADY_PRESENT: internal,
  FST_ERR_DEC_DEPENDENCY_INVALID_TYPE: internal,
  FST_ERR_DEC_MISSING_DEPENDENCY: internal,
  FST_ERR_DEC_AFTER_START: internal,
  FST_ERR_DEC_REFERENCE_TYPE: internal,
  FST_ERR_DEC_UNDECLARED: internal,
  FST_ERR_HOOK_INVALID_TYPE: internal,
  FST_ERR_HOOK_INVALID_HANDLER: internal,
  FST_ERR_HOOK_INVALID_ASYNC_HANDLER: internal,
  FST_ERR_HOOK_NOT_SUPPORTED: internal,
  FST_ERR_MISSING_MIDDLEWARE: internal,
  FST_ERR_HOOK_TIMEOUT: internal,
  FST_ERR_LOG_INVALID_DESTINATION: internal,
  FST_ERR_LOG_INVALID_LOGGER: internal,
  FST_ERR_LOG_INVALID_LOGGER_INSTANCE: internal,
  FST_ERR_LOG_INVALID_LOGGER_CONFIG: internal,
  FST_ERR_LOG_LOGGER_AND_LOGGER_INSTANCE_PROVIDED: internal,
  FST_ERR_LOG_INVALID_LOG_CONTROLLER: internal,
  FST_ERR_SCH_MISSING_ID: internal,
  FST_ERR_SCH_ALREADY_PRESENT: internal,
  FST_ERR_SCH_CONTENT_MISSING_SCHEMA: internal,
  FST_ERR_SCH_DUPLICATE: internal,
  FST_ERR_SCH_VALIDATION_BUILD: internal,
  FST_ERR_SCH_SERIALIZATION_BUILD: internal,
  FST_ERR_SCH_RESPONSE_SCHEMA_NOT_NESTED_2XX: internal,
  FST_ERR_INIT_OPTS_INVALID: internal,
  FST_ERR_FORCE_CLOSE_CONNECTIONS_IDLE_NOT_AVAILABLE: internal,
  FST_ERR_DUPLICATED_ROUTE: internal,
  FST_ERR_ROUTE_OPTIONS_NOT_OBJ: internal,
  FST_ERR_ROUTE_DUPLICATED_HANDLER: internal,
  FST_ERR_ROUTE_HANDLER_NOT_FN: internal,
  FST_ERR_ROUTE_MISSING_HANDLER: internal,
  FST_ERR_ROUTE_METHOD_INVALID: internal,
  FST_ERR_ROUTE_METHOD_NOT_SUPPORTED: internal,
  FST_ERR_ROUTE_LOG_LEVEL_INVALID: internal,
  FST_ERR_ROUTE_BODY_VALIDATION_SCHEMA_NOT_SUPPORTED: internal,
  FST_ERR_ROUTE_BODY_LIMIT_OPTION_NOT_INT: internal,
  FST_ERR_ROUTE_HANDLER_TIMEOUT_OPTION_NOT_INT: internal,
  FST_ERR_ROUTE_REWRITE_NOT_STR: internal,
  FST_ERR_REOPENED_CLOSE_SERVER: internal,
  FST_ERR_REOPENED_SERVER: internal,
  FST_ERR_INSTANCE_ALREADY_LISTENING: internal,
  FST_ERR_PLUGIN_VERSION_MISMATCH: internal,
  FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE: internal,
  FST_ERR_PLUGIN_INVALID_ASYNC_HANDLER: internal,
  FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED: internal,
  FST_ERR_PLUGIN_CALLBACK_NOT_FN: internal,
  FST_ERR_PLUGIN_NOT_VALID: internal,
  FST_ERR_ROOT_PLG_BOOTED: internal,
  FST_ERR_PARENT_PLUGIN_BOOTED: internal,
  FST_ERR_PLUGIN_TIMEOUT: internal,
};

/**
 * The DbError for anything fastify hands its error handler or
 * `frameworkErrors`: our own DbErrors pass through, fastify codes go through
 * FASTIFY_ERRORS, a failed body stream (the client closed or reset the
 * connection mid-body; fastify marks it 400) is a 400, and the rest is Internal.
 */
export function fromFrameworkError(err: unknown, bodyLimit: number): DbError {
  if (err instanceof DbError) return err;
  if (!(err instanceof Error)) return new Internal('Internal server error', { cause: err });
  const failure = err as ErrorLike;
  if (typeof failure.code === 'string' && Object.hasOwn(FASTIFY_ERRORS, failure.code)) {
    return FASTIFY_ERRORS[failure.code as FastifyCode](failure, bodyLimit);
  }
  if (failure.statusCode === 400) return new InvalidInput(`Request body could not be read: ${failure.message}`);
  return internal(failure, bodyLimit);
}

/**
 * The DbError answering an error node's HTTP parser reports as `clientError`
 * (codes HPE_* from llhttp, ERR_HTTP_REQUEST_TIMEOUT), or undefined when no
 * answer can be sent (the client reset the connection).
 */
export function fromClientError(err: ErrorLike): DbError | undefined {
  if (err.code === 'ECONNRESET') return undefined;
  if (err.code === 'HPE_HEADER_OVERFLOW') return new HeadersTooLarge('Request headers exceed the size limit');
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestTimeout('The request was not received in time');
  const reason = (err.reason ?? err.message).slice(0, 100);
  return new InvalidInput(`Malformed HTTP request: ${reason}${err.code ? ` (${err.code})` : ''}`);
}

/** The DbError answering a WebSocket handshake the ws library refuses (it names the fault only in the message). */
export function fromHandshakeError(err: Error): DbError {
  if (err.message === 'Invalid HTTP method') return new MethodNotAllowed('A WebSocket upgrade must use GET');
  // RFC 6455 4.4: a version refusal names the versions the server speaks.
  const message = `Invalid WebSocket upgrade: ${err.message}`;
  return err.message.includes('Sec-WebSocket-Version')
    ? new WsVersionRefused(message, '13, 8')
    : new InvalidInput(message);
}
