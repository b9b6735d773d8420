/** How a request's Content-Type picks the body format, and how header values appear in messages. */
import { expect } from 'chai';
import { UnsupportedMedia, InvalidInput } from '../../../lib/errors.js';
import { bodyFormat, showHeader } from '../../../lib/http/wire/content-type.js';
import { readHeaderObject, readRawHeaders } from '../../../lib/http/routing/request-headers.js';

describe('bodyFormat', () => {
  for (const v of [
    undefined,
    '',
    '   ',
    'application/json',
    'Application/JSON; charset=UTF-8',
    'application/json;',
    'application/vnd.api+json',
    'text/plain',
    'application/json; a="b,c"',
  ]) {
    it(`reads a body sent with Content-Type ${JSON.stringify(v)} as JSON`, () =>
      expect(bodyFormat(v)).to.equal('json'));
  }

  for (const v of ['application/msgpack', 'application/x-msgpack; q=1', 'APPLICATION/VND.MSGPACK']) {
    it(`reads a body sent with Content-Type ${JSON.stringify(v)} as MessagePack`, () =>
      expect(bodyFormat(v)).to.equal('msgpack'));
  }

  for (const [v, says] of [
    ['foo', 'expected type/subtype'],
    [',', 'one media type'],
    ['application/json, application/msgpack', 'one media type'],
    ['; charset=utf-8', 'no media type'],
    ['/json', 'expected type/subtype'],
    ['application/json x', 'expected type/subtype'],
    ['text/xml', "Unsupported Content-Type 'text/xml'"],
    ['*/*', "Unsupported Content-Type '*/*'"],
  ] as const) {
    it(`refuses Content-Type ${JSON.stringify(v)} with 415 saying ${says}`, () => {
      expect(() => bodyFormat(v)).to.throw(UnsupportedMedia, says);
    });
  }

  it('shows header values quoted, escaped and cut to 64 characters', () => {
    expect(showHeader("it's")).to.equal("'it\\'s'");
    expect(showHeader('a\u0001\u00ff\u20ac')).to.equal("'a\\x01\\xff\\u20ac'");
    expect(showHeader('x'.repeat(100))).to.equal(`'${'x'.repeat(64)}...'`);
  });
});

describe('request headers: Authorization and Content-Type sent once', () => {
  it('accepts single and identical repeated lines', () => {
    readHeaderObject({});
    readRawHeaders(['Content-Type', 'application/json', 'Accept', 'a', 'Accept', 'b']);
    readRawHeaders(['content-type', 'application/json', 'Content-Type', 'application/json']);
  });

  it('refuses a Content-Type repeated with another value with 415 naming both', () => {
    expect(() => readRawHeaders(['Content-Type', 'application/json', 'content-type', 'text/xml'])).to.throw(
      UnsupportedMedia,
      "'application/json', 'text/xml'",
    );
  });

  it('refuses an Authorization repeated with another value with 400, without repeating the values', () => {
    expect(() => readRawHeaders(['Authorization', 'Bearer a', 'Authorization', 'Bearer b']))
      .to.throw(InvalidInput)
      .with.property('message')
      .that.does.not.contain('Bearer');
  });
});
