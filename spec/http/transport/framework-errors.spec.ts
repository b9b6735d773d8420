/**
 * The one table from framework errors to our error table: every code fastify
 * exports is mapped (so an upgrade that adds one fails here until it is),
 * client-caused errors become the right 4xx, and everything else is an
 * Internal that keeps the original error as its cause.
 */
import { expect } from 'chai';
import { errorCodes } from 'fastify';
import { DbError, Internal, toDbError } from '../../../lib/errors.js';
import {
  FASTIFY_ERRORS,
  fromClientError,
  fromFrameworkError,
  fromHandshakeError,
} from '../../../lib/http/transport/framework-errors.js';
import { renderError } from '../../../lib/http/wire/error-body.js';

const CLIENT_CAUSED: Record<string, number> = {
  FST_ERR_NOT_FOUND: 404,
  FST_ERR_VALIDATION: 400,
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_CTP_EMPTY_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_JSON_BODY: 400,
  FST_ERR_BAD_URL: 400,
  FST_ERR_MAX_PARAM_LENGTH: 414,
  FST_ERR_INVALID_URL: 400,
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: 400,
  FST_ERR_ROUTE_MISSING_CONTENT: 400,
};

/** An instance of fastify's error class for `code`, as fastify would raise it. */
function raise(code: string): Error {
  const Ctor = (errorCodes as unknown as Record<string, new (...a: unknown[]) => Error>)[code]!;
  return new Ctor('a', 'b', 'c');
}

describe('framework errors', () => {
  it('maps every error code fastify exports, and nothing fastify does not export', () => {
    const exported = Object.keys(errorCodes).sort();
    expect(exported.length).to.be.above(50);
    expect(Object.keys(FASTIFY_ERRORS).sort()).to.deep.equal(exported);
  });

  for (const [code, status] of Object.entries(CLIENT_CAUSED)) {
    it(`answers ${code} with ${status}`, () => {
      const e = fromFrameworkError(raise(code), 1024);
      expect(e).to.be.instanceOf(DbError);
      expect(e.status).to.equal(status);
      expect(e.message).to.be.a('string').and.not.empty;
    });
  }

  it('names the configured body limit in the 413', () => {
    expect(fromFrameworkError(raise('FST_ERR_CTP_BODY_TOO_LARGE'), 4096).message).to.equal(
      'Request body exceeds 4096 bytes',
    );
  });

  it('answers the handler time budget with 504', () => {
    expect(fromFrameworkError(raise('FST_ERR_HANDLER_TIMEOUT'), 1).status).to.equal(504);
  });

  it('answers every other code with an Internal 500 that keeps the original as its cause', () => {
    const others = Object.keys(errorCodes).filter((c) => !(c in CLIENT_CAUSED) && c !== 'FST_ERR_HANDLER_TIMEOUT');
    expect(others.length).to.be.above(50);
    for (const code of others) {
      const original = raise(code);
      const e = fromFrameworkError(original, 1);
      expect(e, code).to.be.instanceOf(Internal);
      expect(e.status, code).to.equal(500);
      expect(e.cause, code).to.equal(original);
    }
  });

  it('passes our own errors through and wraps a plain throw as Internal with its cause', () => {
    const ours = toDbError(new Error('x'));
    expect(fromFrameworkError(ours, 1)).to.equal(ours);
    const bug = new TypeError('undefined is not a function');
    const e = fromFrameworkError(bug, 1);
    expect(e).to.be.instanceOf(Internal);
    expect(e.cause).to.equal(bug);
    expect(fromFrameworkError('a string', 1)).to.be.instanceOf(Internal);
  });

  it('answers a body stream the client broke off (fastify marks it 400) with 400', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    expect(fromFrameworkError(aborted, 1).status).to.equal(400);
  });

  it(
    'maps node HTTP parser errors: 431 for oversized headers, 408 for a slow client, 400 for the rest, nothing for ' +
      'a reset',
    () => {
      const hpe = (code: string, reason = 'bad') =>
        Object.assign(new Error(`Parse Error: ${reason}`), { code, reason });
      expect(fromClientError(hpe('HPE_HEADER_OVERFLOW'))!.status).to.equal(431);
      expect(
        fromClientError(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))!.status,
      ).to.equal(408);
      const invalid = fromClientError(hpe('HPE_INVALID_HEADER_TOKEN', 'Invalid header value char'))!;
      expect(invalid.status).to.equal(400);
      expect(invalid.message).to.equal('Malformed HTTP request: Invalid header value char (HPE_INVALID_HEADER_TOKEN)');
      expect(fromClientError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).to.equal(undefined);
    },
  );

  it('maps ws handshake refusals: 405 for a method other than GET, 400 naming the header otherwise', () => {
    expect(fromHandshakeError(new Error('Invalid HTTP method')).status).to.equal(405);
    const key = fromHandshakeError(new Error('Missing or invalid Sec-WebSocket-Key header'));
    expect(key.status).to.equal(400);
    expect(key.message).to.contain('Sec-WebSocket-Key');
    expect(
      renderError(fromHandshakeError(new Error('Missing or invalid Sec-WebSocket-Version header')), 'r').headers,
    ).to.deep.equal({ 'Sec-WebSocket-Version': '13, 8' });
  });
});
