/**
 * The console's collection pages in a real headless Chromium: create a collection, see it listed with no records,
 * edit its schema (a field with a constraint; a bad regex refused by the server and shown at the field), the JSON
 * view, create and drop a query index, see a vector index's settings, set the primary-key alias, restore deleted
 * records from the trash, delete the collection with confirmation; a restricted key sees create and delete
 * disabled with the reason.
 */
import { expect } from 'chai';
import { consoleHarness } from '../helpers/console-browser.js';

describe('console: collections, schema, indexes and trash (headless chromium)', function () {
  this.timeout(30_000);
  const h = consoleHarness({
    seed: async (t) => {
      await t.request('POST', '/api/batch/insert/people', {
        inserts: [{ data: { id: 'p1', name: 'Ada' } }, { data: { id: 'p2', name: 'Grace' } }],
      });
    },
  });
  const settings = (tab = '') => `/collections/books/settings${tab ? `/${tab}` : ''}`;

  it('creates a collection and lists it with no records', async () => {
    await h.open('/collections');
    await h.page.locator('tr[data-collection="people"] [data-testid="record-count"]', { hasText: '2' }).waitFor();
    await h.page.fill('#new-collection', 'books');
    await h.page.click('button:has-text("Create collection")');
    await h.page.locator('tr[data-collection="books"] [data-testid="record-count"]', { hasText: '0' }).waitFor();
    expect((await h.t.request('GET', '/api/collections/books')).status).to.equal(200);
    await h.shot('collections-created');
  });

  it('shows the schema error of a bad create at the field it names', async () => {
    await h.page.fill('#new-collection', 'broken');
    await h.page.check('text=With a schema');
    await h.page.fill('#new-schema', '{"fields": {"title": {"field_type": "string"}}}');
    await h.page.click('button:has-text("Create collection")');
    const problem = h.page.locator('.json-editor [data-field="title"]');
    await problem.waitFor();
    expect(await problem.textContent()).to.include("did you mean 'String'");
    await h.shot('collections-create-error');
  });

  it('adds a field with a constraint through the field form', async () => {
    await h.page.click('a[aria-label="Settings of books"]');
    await h.page.waitForURL(/\/collections\/books\/settings$/);
    await h.page.locator('text=No fields declared').waitFor();
    await h.page.click('button:has-text("Add field")');
    await h.page.fill('#field-name', 'title');
    await h.page.check('.field-form label:has-text("Required") input');
    await h.page.fill('#field-min', '2');
    await h.page.fill('#field-max', '120');
    await h.page.click('.field-form button[type="submit"]');
    const row = h.page.locator('tr[data-field="title"]');
    await row.waitFor();
    expect(await row.textContent())
      .to.include('required')
      .and.include('min 2')
      .and.include('max 120');
    const schema = await h.t.request('GET', '/api/schemas/books');
    expect(schema.body.fields.title).to.include({ field_type: 'String', required: true, min: 2, max: 120 });
    // The server checks later writes against it.
    expect((await h.t.request('POST', '/api/insert/books', { title: 'x' })).status).to.equal(400);
    await h.shot('collection-schema');
  });

  it('shows the server refusing a bad regex at the pattern box', async () => {
    await h.page.click('tr[data-field="title"] button:has-text("Edit")');
    await h.page.waitForURL(/field=title/);
    await h.page.fill('#field-regex', '(a');
    await h.page.click('.field-form button[type="submit"]');
    const error = h.page.locator('.field[data-box="regex"] .field-error');
    await error.waitFor();
    expect(await error.textContent()).to.include("Field 'title': invalid regex");
    expect(await h.page.getAttribute('#field-regex', 'aria-invalid')).to.equal('true');
    await h.page.locator('.field-form [role="alert"]', { hasText: 'request_id' }).waitFor();
    await h.shot('collection-schema-error');
    await h.page.fill('#field-regex', '^[A-Z]');
    await h.page.click('.field-form button[type="submit"]');
    await h.page.locator('tr[data-field="title"]', { hasText: 'regex /^[A-Z]/' }).waitFor();
  });

  it('declares a vector field with its index settings and shows them on the indexes tab', async () => {
    await h.page.click('button:has-text("Add field")');
    await h.page.fill('#field-name', 'embedding');
    await h.page.selectOption('#field-field_type', 'Vector');
    await h.page.selectOption('#field-index', 'vector');
    await h.page.selectOption('#field-metric', 'euclidean');
    await h.page.fill('#field-dimensions', '3');
    await h.shot('collection-field-form');
    await h.page.click('.field-form button[type="submit"]');
    await h.page.locator('tr[data-field="embedding"]', { hasText: 'vector' }).waitFor();
    const schema = await h.t.request('GET', '/api/schemas/books');
    expect(schema.body.fields.embedding.index).to.deep.equal({ type: 'vector', metric: 'euclidean', dimensions: 3 });
  });

  it('saves a field of every type, with the options each type takes', async () => {
    const types = ['String', 'Integer', 'Float', 'Number', 'Boolean', 'Array', 'Object', 'DateTime', 'Decimal'].concat([
      'UUID',
      'Vector',
      'Set',
      'Binary',
      'Bytes',
      'Duration',
      'Null',
    ]);
    // The options to fill per type: box id suffix to text (selects are chosen, the rest typed).
    const options: Record<string, Record<string, string>> = {
      Integer: { enums: '1\n2\n3', default: '2' },
      Float: { min: '0.5', max: '9.5' },
      Boolean: { default: 'true' },
      Array: { max: '4' },
      DateTime: { min: '2020-01-01T00:00:00Z' },
      Decimal: { min: '0.10', max: '12345678901234567890.25' },
      UUID: { format: 'rfc4122' },
      String: { enums: 'draft\npublished', index: 'text', language: 'english' },
    };
    for (const type of types) {
      await h.page.click('button:has-text("Add field")');
      await h.page.fill('#field-name', `t_${type.toLowerCase()}`);
      await h.page.selectOption('#field-field_type', type);
      for (const [box, value] of Object.entries(options[type] ?? {})) {
        const selector = `#field-${box}`;
        if ((await h.page.locator(selector).evaluate((e) => e.tagName)) === 'SELECT')
          await h.page.selectOption(selector, value);
        else await h.page.fill(selector, value);
      }
      await h.page.click('.field-form button[type="submit"]');
      await h.page.locator(`tr[data-field="t_${type.toLowerCase()}"]`).waitFor();
    }
    const fields = (await h.t.request('GET', '/api/schemas/books')).body.fields;
    for (const type of types) expect(fields[`t_${type.toLowerCase()}`].field_type).to.equal(type);
    expect(fields.t_integer).to.include({ default: 2 });
    expect(fields.t_integer.enums).to.deep.equal([1, 2, 3]);
    expect(fields.t_float).to.include({ min: 0.5, max: 9.5 });
    expect(fields.t_boolean).to.include({ default: true });
    expect(fields.t_array).to.include({ max: 4 });
    expect(fields.t_uuid).to.include({ format: 'rfc4122' });
    expect(fields.t_string.index).to.deep.equal({ type: 'text', language: 'english' });
    expect(fields.t_string.enums).to.deep.equal(['draft', 'published']);
    expect(String(fields.t_datetime.min)).to.match(/^2020-01-01T00:00:00/);
    expect(String(fields.t_decimal.max)).to.equal('12345678901234567890.25');
    await h.shot('collection-schema-all-types');
    // Remove them again (with confirmation), so the rest of the spec sees the schema it built.
    for (const type of types) {
      await h.page.click(`tr[data-field="t_${type.toLowerCase()}"] button:has-text("Remove")`);
      await h.page.click('dialog[open] button:has-text("Remove field")');
      await h.page.locator(`tr[data-field="t_${type.toLowerCase()}"]`).waitFor({ state: 'detached' });
    }
  });

  it('edits the schema as JSON and shows the error at the member', async () => {
    await h.page.click('nav.tabs a[data-tab="json"]');
    await h.page.waitForURL(/settings\/json$/);
    const text = await h.page.inputValue('#schema-json');
    expect(JSON.parse(text).fields.title).to.include({ field_type: 'String', required: true });
    const bad = JSON.parse(text) as { fields: Record<string, unknown> };
    bad.fields.year = { field_type: 'Integer', min: 10, max: 5 };
    await h.page.fill('#schema-json', JSON.stringify(bad, null, 2));
    await h.page.click('button:has-text("Save schema")');
    await h.page.locator('.json-editor [data-field="year"]', { hasText: 'greater than max' }).waitFor();
    await h.shot('collection-schema-json');
    bad.fields.year = { field_type: 'Integer', min: 1000, enums: [1999, 2024] };
    await h.page.fill('#schema-json', JSON.stringify(bad, null, 2));
    await h.page.click('button:has-text("Save schema")');
    await h.page.locator('[role="status"]', { hasText: 'Saved' }).waitFor();
    const schema = await h.t.request('GET', '/api/schemas/books');
    expect(schema.body.fields.year).to.include({ field_type: 'Integer', min: 1000 });
    expect(schema.body.fields.year.enums).to.deep.equal([1999, 2024]);
  });

  it('creates and drops a query index', async () => {
    await h.page.click('nav.tabs a[data-tab="indexes"]');
    await h.page.locator('text=No query indexes.').waitFor();
    await h.page.locator('tr[data-search-index="embedding"]', { hasText: 'euclidean' }).waitFor();
    await h.page.fill('#index-field', 'title');
    await h.page.selectOption('#index-type', 'hash');
    await h.page.click('button:has-text("Create index")');
    await h.page.locator('tr[data-index="title"]', { hasText: 'hash' }).waitFor();
    const listed = await h.t.request('GET', '/api/indexes/query/books');
    expect(listed.body.indexes).to.deep.include({ field: 'title', type: 'hash', source: 'admin', entries: 0 });
    await h.shot('collection-indexes');
    await h.page.click('tr[data-index="title"] button:has-text("Drop index")');
    await h.page.click('dialog[open] button:has-text("Drop index")');
    await h.page.locator('text=No query indexes.').waitFor();
    expect((await h.t.request('GET', '/api/indexes/query/books')).body.indexes).to.deep.equal([]);
  });

  it('sets the primary-key alias', async () => {
    await h.page.click('nav.tabs a[data-tab="key"]');
    await h.page.locator('[data-testid="primary-key-alias"]', { hasText: 'id' }).waitFor();
    await h.page.fill('#alias', 'isbn');
    await h.page.click('button:has-text("Set alias")');
    await h.page.locator('[data-testid="primary-key-alias"]', { hasText: 'isbn' }).waitFor();
    expect((await h.t.request('GET', '/api/schemas/books')).body.primary_key_alias).to.equal('isbn');
    await h.shot('collection-primary-key');
  });

  it('restores deleted records from the trash, all of them or one by id', async () => {
    await h.t.request('DELETE', '/api/delete/people/p1');
    await h.t.request('DELETE', '/api/delete/people/p2');
    await h.open('/collections/people/settings/trash?id=p1');
    await h.page.locator('[data-testid="trash-count"]', { hasText: '2' }).waitFor();
    expect(await h.page.inputValue('#restore-id')).to.equal('p1');
    await h.page.click('button:has-text("Restore record")');
    await h.page.locator('[role="status"]', { hasText: 'Restored record p1' }).waitFor();
    await h.page.locator('[data-testid="trash-count"]', { hasText: '1' }).waitFor();
    await h.page.fill('#restore-id', 'nobody');
    await h.page.click('button:has-text("Restore record")');
    await h.page.locator('[role="alert"]', { hasText: 'not in the trash' }).waitFor();
    await h.shot('collection-trash');
    await h.page.click('button:has-text("Restore every record")');
    await h.page.locator('[role="status"]', { hasText: 'Restored 1 record' }).waitFor();
    expect((await h.t.request('GET', '/api/collections/people')).body.record_count).to.equal(2);
  });

  it('deletes a collection only after confirming, and says it is for good', async () => {
    await h.open(settings('trash'));
    await h.page.click('.danger-zone button:has-text("Delete books")');
    const dialog = h.page.locator('dialog[open]');
    expect(await dialog.textContent()).to.include('cannot be restored');
    await h.shot('collection-delete-confirm');
    await dialog.locator('button:has-text("Cancel")').click();
    expect((await h.t.request('GET', '/api/collections/books')).status).to.equal(200);
    await h.page.click('.danger-zone button:has-text("Delete books")');
    await h.page.click('dialog[open] button:has-text("Delete for good")');
    await h.page.waitForURL(/\/collections$/);
    await h.page.locator('tr[data-collection="people"]').waitFor();
    expect(await h.page.locator('tr[data-collection="books"]').count()).to.equal(0);
    expect((await h.t.request('GET', '/api/collections/books')).status).to.equal(404);
  });

  it('shows a restricted key its granted collections with create and delete disabled, saying why', async () => {
    const made = await h.t.request('POST', '/api/auth/keys', {
      name: 'reader',
      collection_permissions: { people: { read: true, write: false } },
    });
    await h.signIn(made.body.key);
    const asked: string[] = [];
    const listen = (r: { url(): string; method(): string }) => asked.push(`${r.method()} ${new URL(r.url()).pathname}`);
    h.page.on('request', listen);
    await h.open('/collections');
    await h.page.locator('tr[data-collection="people"] [data-testid="record-count"]', { hasText: '2' }).waitFor();
    const create = h.page.locator('button:has-text("Create collection")');
    expect(await create.isDisabled()).to.equal(true);
    expect(await create.getAttribute('title')).to.include('only an admin key');
    const del = h.page.locator('tr[data-collection="people"] button:has-text("Delete people")');
    expect(await del.isDisabled()).to.equal(true);
    expect(await del.getAttribute('title')).to.include('only an admin key');
    await h.shot('collections-restricted');
    await h.open('/collections/people/settings');
    await h.page.locator('text=No fields declared').waitFor();
    expect(await h.page.locator('button:has-text("Add field")').isDisabled()).to.equal(true);
    await h.page.click('nav.tabs a[data-tab="indexes"]');
    await h.page.locator('text=only an admin key may list or change indexes').waitFor();
    await h.shot('collection-settings-restricted');
    h.page.off('request', listen);
    // Only routes a restricted key may use: no collection listing, no index listing.
    expect(asked.filter((a) => /^GET \/api\/(collections$|indexes)/.test(a))).to.deep.equal([]);
    expect(asked).to.include('GET /api/collections/people').and.include('GET /api/schemas/people');
  });

  it('works at phone width', async () => {
    await h.signIn();
    await h.page.setViewportSize({ width: 390, height: 800 });
    await h.open('/collections');
    await h.page.locator('tr[data-collection="people"]').waitFor();
    await h.shot('collections-phone');
    await h.open('/collections/people/settings?new=1');
    await h.page.locator('#field-name').waitFor();
    await h.shot('collection-schema-phone');
  });
});
