/**
 * Records, collections and schemas, batches, transactions, indexes and
 * search, key-value, subscriptions: answers against the document.
 */
import { expect } from 'chai';
import type { Exchanges } from '../exchanges.js';

export function dataAnswers(h: Exchanges): void {
  describe('records', () => {
    it('insert, read, find, update, actions, distinct, count, delete', async () => {
      const created = await h.call(
        'POST',
        '/api/insert/people',
        { name: 'Ann', age: 31, tags: ['a'], born: { type: 'DateTime', value: '1990-01-01T00:00:00Z' } },
        { expect: 201 },
      );
      const id = created.body.id as string;
      await h.call('POST', '/api/insert/people', { id: 'p2', name: 'Bob', age: 40, ttl: '1h' }, { expect: 201 });
      await h.call('POST', '/api/insert/people', { id: 'p2', name: 'Bob' }, { expect: 409 });
      await h.call('POST', '/api/insert/people', [1, 2], { expect: 400 });
      await h.call('GET', `/api/find/people/${id}`, undefined, { expect: 200 });
      await h.call('GET', `/api/find/people/${id}?select_fields=name&exclude_fields=age`, undefined, { expect: 200 });
      await h.call('GET', '/api/find/people/nope', undefined, { expect: 404 });
      await h.call(
        'POST',
        '/api/find/people',
        {
          filter: { type: 'Condition', content: { field: 'age', operator: 'Gt', value: 30 } },
          sort: [{ field: 'age', ascending: false }],
          limit: 10,
          skip: 0,
          select_fields: ['name', 'age'],
        },
        { expect: 200 },
      );
      await h.call('POST', '/api/find/people', {}, { expect: 200 });
      await h.call('POST', '/api/find/people', { filter: null, limit: null }, { expect: 200 });
      await h.call('POST', '/api/find/people', { limit: -1 }, { expect: 400 });
      await h.call('PUT', `/api/update/people/${id}`, { age: 32 }, { expect: 200 });
      await h.call('PUT', '/api/update/people/nope', { age: 1 }, { expect: 404 });
      await h.call('PUT', `/api/update/people/${id}/action/increment`, { field: 'age', value: 1 }, { expect: 200 });
      await h.call('PUT', `/api/update/people/${id}/action/push`, ['tags', 'b'], { expect: 200 });
      await h.call('PUT', `/api/update/people/${id}/action/explode`, { field: 'age' }, { expect: 400 });
      await h.call(
        'PUT',
        `/api/update/sequence/people/${id}`,
        [
          ['increment', 'age', 1],
          ['push', 'tags', 'c'],
        ],
        { expect: 200 },
      );
      await h.call('PUT', `/api/update/sequence/people/${id}`, { no: 1 }, { expect: 400 });
      await h.call('POST', '/api/distinct/people/age', {}, { expect: 200 });
      await h.call(
        'POST',
        '/api/distinct/people/name',
        { filter: { type: 'Condition', content: { field: 'age', operator: 'Gte', value: 0 } } },
        { expect: 200 },
      );
      await h.call('GET', '/api/people/count', undefined, { expect: 200 });
      await h.call('DELETE', '/api/delete/people/p2', undefined, { expect: 200 });
      await h.call('DELETE', '/api/delete/people/p2', undefined, { expect: 404 });
      h.assertClean();
    });

    it('without typed values', async () => {
      await h.call('PUT', '/api/config', { use_typed_values: false }, { expect: 200 });
      try {
        const created = await h.call('POST', '/api/insert/plain', { a: 1, b: 'x' }, { expect: 201 });
        await h.call('GET', `/api/find/plain/${created.body.id}`, undefined, { expect: 200 });
        await h.call('POST', '/api/find/plain', { limit: 5 }, { expect: 200 });
      } finally {
        await h.call('PUT', '/api/config', { use_typed_values: true }, { expect: 200 });
      }
      h.assertClean();
    });
  });

  describe('collections, schemas, trash', () => {
    it('create, read, change, alias, restore, drop', async () => {
      await h.call(
        'POST',
        '/api/collections/books',
        {
          fields: {
            title: { field_type: 'String', required: true },
            pages: { field_type: 'Integer', min: 1 },
            isbn: { field_type: 'String', unique: true },
          },
        },
        { expect: 201 },
      );
      await h.call('POST', '/api/collections/books', {}, { expect: 409 });
      await h.call('POST', '/api/collections/loose', undefined, { expect: 201 });
      await h.call('GET', '/api/collections', undefined, { expect: 200 });
      await h.call('GET', '/api/collections?exclude_internal=true', undefined, { expect: 200 });
      await h.call('GET', '/api/collections/books', undefined, { expect: 200 });
      await h.call('GET', '/api/collections/nope', undefined, { expect: 404 });
      await h.call('GET', '/api/schemas/books', undefined, { expect: 200 });
      await h.call('PUT', '/api/schemas/books', { constraints: { pages: { max: 5000 } } }, { expect: 200 });
      await h.call('PUT', '/api/schemas/books', { nothing: 1 }, { expect: 400 });
      const violation = await h.call('POST', '/api/insert/books', { pages: 0 }, { expect: 400 });
      expect(violation.body.details).to.be.an('array');
      await h.call('PUT', '/api/schemas/books/primary-key-alias', { alias: 'isbn' }, { expect: 200 });
      await h.call('PUT', '/api/schemas/books/primary-key-alias', { alias: '' }, { expect: 400 });
      const book = await h.call('POST', '/api/insert/books', { title: 'T', pages: 10, isbn: 'i-1' }, { expect: 201 });
      await h.call('DELETE', `/api/delete/books/${book.body.id}`, undefined, { expect: 200 });
      const trash = await h.call('GET', '/api/trash/books?limit=10', undefined, { expect: 200 });
      expect(trash.body.total).to.equal(1);
      expect(trash.body.records[0].id).to.equal(book.body.id);
      await h.call('GET', '/api/trash/books?limit=0', undefined, { expect: 400 });
      await h.call('GET', '/api/trash/nope', undefined, { expect: 404 });
      await h.call('POST', `/api/trash/books/${book.body.id}`, undefined, { expect: 200 });
      await h.call('POST', '/api/trash/books/nope', undefined, { expect: 404 });
      await h.call('POST', '/api/trash/books', undefined, { expect: 200 });
      await h.call('DELETE', '/api/collections/loose', undefined, { expect: 200 });
      await h.call('DELETE', '/api/collections/loose', undefined, { expect: 404 });
      h.assertClean();
    });
  });

  describe('batches', () => {
    it('all written, some failed, all failed, refused', async () => {
      await h.call(
        'POST',
        '/api/batch/insert/items',
        { inserts: [{ data: { id: 'i1', n: 1 } }, { data: { n: 2 } }] },
        {
          expect: 201,
        },
      );
      await h.call(
        'POST',
        '/api/batch/insert/items',
        { inserts: [{ data: { id: 'i1' } }, { data: { n: 3 } }] },
        {
          expect: 207,
        },
      );
      await h.call('POST', '/api/batch/insert/items', { inserts: [{ data: { id: 'i1' } }] }, { expect: 400 });
      await h.call('POST', '/api/batch/insert/items', { rows: [] }, { expect: 400 });
      await h.call('PUT', '/api/batch/update/items', { updates: [{ id: 'i1', data: { n: 10 } }] }, { expect: 200 });
      await h.call(
        'PUT',
        '/api/batch/update/items',
        {
          updates: [
            { id: 'i1', data: { n: 11 } },
            { id: 'nope', data: {} },
          ],
        },
        { expect: 207 },
      );
      await h.call('DELETE', '/api/batch/delete/items', { deletes: [{ id: 'i1' }] }, { expect: 200 });
      await h.call('DELETE', '/api/batch/delete/items', { deletes: [{ id: 'nope' }] }, { expect: 400 });
      h.assertClean();
    });
  });

  describe('transactions', () => {
    it('begin, write in, status, savepoints, commit, rollback, audit', async () => {
      const tx = (await h.call('POST', '/api/transactions', { isolation_level: 'Serializable' }, { expect: 200 })).body
        .transaction_id as string;
      await h.call('POST', '/api/transactions', { isolation_level: 'Sometimes' }, { expect: 400 });
      await h.call('POST', `/api/insert/ledger?transaction_id=${tx}`, { amount: 5 }, { expect: 201 });
      await h.call('POST', `/api/transactions/${tx}/savepoints`, { name: 'sp1' }, { expect: 200 });
      await h.call('POST', `/api/insert/ledger?transaction_id=${tx}`, { amount: 6 }, { expect: 201 });
      await h.call('POST', `/api/transactions/${tx}/savepoints/sp1/rollback`, undefined, { expect: 200 });
      await h.call('POST', `/api/transactions/${tx}/savepoints`, { name: 'sp2' }, { expect: 200 });
      await h.call('DELETE', `/api/transactions/${tx}/savepoints/sp2`, undefined, { expect: 200 });
      await h.call('DELETE', `/api/transactions/${tx}/savepoints/none`, undefined, { expect: 404 });
      await h.call('GET', `/api/transactions/${tx}`, undefined, { expect: 200 });
      await h.call('GET', '/api/transactions', undefined, { expect: 200 });
      await h.call('POST', `/api/transactions/${tx}/commit`, undefined, { expect: 200 });
      await h.call('GET', `/api/transactions/${tx}`, undefined, { expect: 404 });
      const other = (await h.call('POST', '/api/transactions', {}, { expect: 200 })).body.transaction_id as string;
      await h.call('POST', `/api/transactions/${other}/rollback`, undefined, { expect: 200 });
      await h.call('POST', `/api/transactions/${other}/commit`, undefined, { expect: 404 });
      await h.call('GET', `/api/admin/audit?transaction_id=${tx}`, undefined, { expect: 200 });
      h.assertClean();
    });
  });

  describe('indexes and search', () => {
    it('query indexes, explain, text and vector search', async () => {
      await h.call(
        'POST',
        '/api/batch/insert/notes',
        {
          inserts: [
            { data: { title: 'Red apples', body: 'apples are red and sweet', embedding: [1, 0, 0], n: 1 } },
            { data: { title: 'Green pears', body: 'pears are green', embedding: [0, 1, 0], n: 2 } },
          ],
        },
        { expect: 201 },
      );
      await h.call('POST', '/api/indexes/query/notes', { field: 'n', type: 'btree' }, { expect: 201 });
      await h.call('POST', '/api/indexes/query/notes', { field: 'n', type: 'rtree' }, { expect: 400 });
      await h.call('GET', '/api/indexes/query/notes', undefined, { expect: 200 });
      await h.call(
        'POST',
        '/api/query/notes/explain',
        { filter: { type: 'Condition', content: { field: 'n', operator: 'Eq', value: 1 } } },
        { expect: 200 },
      );
      await h.call(
        'POST',
        '/api/search/notes',
        { query: 'apples', fields: ['title', 'body'], limit: 5 },
        {
          expect: 200,
        },
      );
      await h.call('POST', '/api/search/notes', { vector: [1, 0, 0], vector_k: 1 }, { expect: 200 });
      await h.call(
        'POST',
        '/api/search/notes',
        { query: 'red', vector: [1, 0, 0], text_weight: 0.5 },
        {
          expect: 200,
        },
      );
      await h.call('POST', '/api/search/notes', {}, { expect: 400 });
      await h.call('DELETE', '/api/indexes/query/notes/n', undefined, { expect: 200 });
      await h.call('DELETE', '/api/indexes/query/notes/n', undefined, { expect: 404 });
      h.assertClean();
    });
  });

  describe('key-value', () => {
    it('set, get, batches, find, links, delete, clear', async () => {
      await h.call('POST', '/api/kv/set/app:one', { value: { a: 1 } }, { expect: 200 });
      await h.call('POST', '/api/kv/set/app:two', { value: 'x', ttl: '1h' }, { expect: 200 });
      await h.call('POST', '/api/kv/set/app:three', { nothing: 1 }, { expect: 400 });
      await h.call('GET', '/api/kv/get/app:one', undefined, { expect: 200 });
      await h.call('GET', '/api/kv/get/app:none', undefined, { expect: 404 });
      await h.call('POST', '/api/kv/batch/set', { keys: ['b:1', 'b:2'], values: [1, 2] }, { expect: 200 });
      await h.call('POST', '/api/kv/batch/get', { keys: ['b:1', 'b:2', 'b:3'] }, { expect: 200 });
      await h.call('POST', '/api/kv/batch/get', { keys: 'b:1' }, { expect: 400 });
      await h.call('DELETE', '/api/kv/batch/delete', { keys: ['b:1', 'b:9'] }, { expect: 200 });
      await h.call('POST', '/api/kv/find', { pattern: '^app:' }, { expect: 200 });
      await h.call('POST', '/api/kv/find', {}, { expect: 200 });
      await h.call('POST', '/api/kv/find', { pattern: '(' }, { expect: 400 });
      const record = await h.call('POST', '/api/insert/linked', { a: 1 }, { expect: 201 });
      const link = { key: 'app:one', collection: 'linked', document_id: record.body.id };
      await h.call('POST', '/api/kv/link', link, { expect: 200 });
      await h.call('GET', '/api/kv/links/app:one', undefined, { expect: 200 });
      await h.call('POST', '/api/kv/unlink', link, { expect: 200 });
      await h.call('POST', '/api/kv/link', { key: 'app:one' }, { expect: 400 });
      await h.call('DELETE', '/api/kv/delete/app:two', undefined, { expect: 200 });
      await h.call('DELETE', '/api/kv/clear', undefined, { expect: 200 });
      h.assertClean();
    });
  });

  describe('subscriptions', () => {
    it('server-sent events of committed changes', async () => {
      const watching = h.stream('GET', '/api/subscribe/watched', undefined, (events) =>
        events.some((e) => e.event === 'mutation'),
      );
      // The subscription is open once its first event went out; a write then shows as a mutation.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await h.call('POST', '/api/insert/watched', { a: 1 }, { expect: 201 });
      const answer = await watching;
      expect(answer.events.map((e) => e.event)).to.include.members(['subscribed', 'mutation']);
      await h.call('GET', '/api/subscribe/bad%20name', undefined, { expect: 400 });
      h.assertClean();
    });
  });
}
