/**
 * The console's model of a key's rights: a stored key read into the editor and written back gives the same
 * rights, the shapes the server distinguishes (no grants, collections only, KV only) survive, and the summary.
 */
import { expect } from 'chai';
import {
  NEW_KEY_RIGHTS,
  requestBody,
  rightsOf,
  rightsProblem,
  rightsSummary,
  type KeyView,
} from '../../console/src/pages/key-rights.js';

const key = (rights: Partial<KeyView>): KeyView => ({
  id: 'k1',
  name: 'k',
  admin: false,
  created_at: '2026-01-01T00:00:00.000Z',
  ...rights,
});

/** The body the editor sends for a stored key left unchanged. */
const roundTrip = (rights: Partial<KeyView>) => requestBody(rightsOf(key(rights)));

describe('console: key rights (editor model)', () => {
  it('keeps a key without grants unrestricted', () => {
    expect(roundTrip({})).to.deep.equal({ name: 'k', admin: false });
    expect(rightsSummary(key({}))).to.equal('Every collection and the whole key-value store');
  });

  it('keeps collection grants, writable fields and the * entry; no KV grant stays none', () => {
    const collection_permissions = {
      orders: { read: true, write: true, writable_fields: ['status', 'note'] },
      '*': { read: true, write: false },
    };
    expect(roundTrip({ collection_permissions })).to.deep.equal({ name: 'k', admin: false, collection_permissions });
    expect(rightsSummary(key({ collection_permissions }))).to.equal(
      'orders: read, write (writes status, note); any other collection: read · no key-value access',
    );
  });

  it('keeps a KV-only key and a key with every collection but a KV grant', () => {
    const kv_permissions = { read: true, write: false, prefixes: ['cfg:', 'app:'] };
    expect(roundTrip({ collection_permissions: {}, kv_permissions })).to.deep.equal({
      name: 'k',
      admin: false,
      collection_permissions: {},
      kv_permissions,
    });
    expect(roundTrip({ kv_permissions })).to.deep.equal({ name: 'k', admin: false, kv_permissions });
    const none = { read: false, write: false };
    expect(roundTrip({ kv_permissions: none })).to.deep.equal({ name: 'k', admin: false, kv_permissions: none });
    expect(rightsSummary(key({ collection_permissions: {}, kv_permissions }))).to.equal(
      'no collections · key-value: read under cfg:, app:',
    );
  });

  it('keeps the admin flag and the rate limit; 0 or empty is no quota', () => {
    expect(roundTrip({ admin: true, rate_limit: 50 })).to.deep.equal({ name: 'k', admin: true, rate_limit: 50 });
    expect(
      requestBody({ ...NEW_KEY_RIGHTS, limitCollections: false, kvRead: true, kvWrite: true, rateLimit: '0' }),
    ).to.deep.equal({ name: 'key', admin: false });
  });

  it('reads typed lists: fields by commas, prefixes by lines, blanks dropped', () => {
    const body = requestBody({
      ...NEW_KEY_RIGHTS,
      name: ' reader ',
      collections: [
        { collection: ' orders ', read: true, write: true, fields: 'a, b,, c ' },
        { collection: '', read: true, write: false, fields: '' },
      ],
      kvRead: true,
      kvPrefixes: 'cfg:\n\n  app: \n',
    });
    expect(body).to.deep.equal({
      name: 'reader',
      admin: false,
      collection_permissions: { orders: { read: true, write: true, writable_fields: ['a', 'b', 'c'] } },
      kv_permissions: { read: true, write: false, prefixes: ['cfg:', 'app:'] },
    });
  });

  it('finds what the server would refuse: a collection listed twice, a rate limit that is not a count', () => {
    const twice = { collection: 'a', read: true, write: false, fields: '' };
    expect(rightsProblem({ ...NEW_KEY_RIGHTS, collections: [twice, twice] })).to.match(/listed twice/);
    expect(rightsProblem({ ...NEW_KEY_RIGHTS, rateLimit: '1.5' })).to.match(/rate limit/);
    expect(rightsProblem({ ...NEW_KEY_RIGHTS, rateLimit: '-1' })).to.match(/rate limit/);
    expect(rightsProblem({ ...NEW_KEY_RIGHTS, rateLimit: '10' })).to.equal(undefined);
  });
});
