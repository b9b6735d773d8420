/**
 * The records pages in a real headless Chromium: the paged table of typed values, insert through the JSON editor
 * with a schema violation shown at its field, an edit that keeps typed values and 64-bit integers exact, delete
 * with confirmation (and the trash), a filter with an Or group and a nested Not, sort and projection, NDJSON import
 * with its progress bar and failed lines, export downloads, and keys that may read but not write (or only some
 * fields).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { consoleHarness } from '../helpers/console-browser.js';

const CITIES = ['Oslo', 'Lima', 'Pune'];
const MANY = 24_010;
const TYPED =
  '{"id":"typed","name":"typed one","age":5,"big":9223372036854775807,"dec":{"type":"Decimal","value":"1.50"},' +
  '"when":"2024-01-02T03:04:05Z","tags":{"type":"Set","value":["a","b"]}}';

describe('console records pages (headless chromium)', function () {
  this.timeout(60_000);
  const h = consoleHarness({
    seed: async (t) => {
      const schema = {
        fields: {
          name: { field_type: 'String', required: true },
          age: { field_type: 'Integer', min: 0, max: 150 },
          email: { field_type: 'String', regex: '^[^@]+@[^@]+$' },
        },
      };
      expect((await t.request('POST', '/api/collections/people', schema)).status).to.equal(201);
      const people = Array.from({ length: 60 }, (_, i) => ({
        id: `p${i}`,
        name: `person ${i}`,
        age: 20 + i,
        city: CITIES[i % 3],
      }));
      await t.request('POST', '/api/batch/insert/people', { inserts: people.map((data) => ({ data })) });
      expect((await t.request('POST', '/api/insert/people', undefined, { raw: TYPED })).status).to.equal(201);
      // Enough records that a far page of a sorted view is read from the end; every 7th has no age.
      const many = Array.from({ length: MANY }, (_, i) => ({ data: i % 7 ? { n: i, age: i % 50 } : { n: i } }));
      for (let i = 0; i < MANY; i += 10_000) {
        const inserts = many.slice(i, i + 10_000);
        expect((await t.request('POST', '/api/batch/insert/many', { inserts })).status).to.equal(201);
      }
    },
  });
  const page = () => h.page;
  const rows = () => h.page.locator('table.records tbody tr');
  /** Waits until the table shows exactly `n` rows. */
  /** Waits until the filtered table shows exactly `n` rows (the range under it reads 1–n once loaded). */
  const rowCount = async (n: number) => {
    await h.page.locator('[data-testid="range"]', { hasText: new RegExp(`^1–${n}$`) }).waitFor();
    expect(await rows().count()).to.equal(n);
  };
  const rowIds = async () => (await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')))).sort();

  it('pages the table of typed values and jumps to a page', async () => {
    await h.open('/collections/people');
    await page().locator('[data-testid="total"]', { hasText: '61 records' }).waitFor();
    await rows().nth(24).waitFor();
    expect(await rows().count()).to.equal(25);
    await page().fill('#page-number', '3');
    await page().click('form[aria-label="Go to page"] button');
    await page().locator('[data-testid="range"]', { hasText: '51–61 of 61' }).waitFor();
    expect(await rows().count()).to.equal(11);
    expect(page().url()).to.include('skip=50');
    expect(await page().isDisabled('text=Last')).to.equal(true);
    expect(await page().locator('tr[data-id="typed"]').textContent()).to.include('9223372036854775807');
    await h.shot('records-table');
  });

  it('shows a far page of a sorted view as the server orders it from the front', async () => {
    const sort = [
      { field: 'age', ascending: false },
      { field: 'id', ascending: true },
    ];
    for (const skip of [MANY - 10, 15_000]) {
      await h.open(`/collections/many?sort=-age&skip=${skip}`);
      await page()
        .locator('[data-testid="range"]', { hasText: `of ${MANY.toLocaleString('en')}` })
        .waitFor();
      const front = await h.t.request('POST', '/api/find/many', { sort, skip, limit: 25 });
      const shown = await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
      expect(shown).to.deep.equal(front.body.map((r: { id: string }) => r.id));
    }
    await page().click('text=Last');
    await page().waitForURL(/skip=24000/);
    await page().locator('[data-testid="range"]', { hasText: '24,001–24,010' }).waitFor();
    expect(await page().isDisabled('text=Next')).to.equal(true);
  });

  it('inserts through the form and shows a schema violation at the field', async () => {
    await h.open('/collections/people');
    await page().click('a:has-text("Insert record")');
    await page().waitForURL(/\/collections\/people\/new$/);
    expect(await page().inputValue('#record-json')).to.include('"name"');
    await page().fill('#record-json', '{\n  "name": "Ann",\n  "age": 200,\n  "email": "not an address"\n}');
    await page().click('button:has-text("Insert")');
    const atAge = page().locator('.field-errors li[data-field="age"]');
    await atAge.waitFor();
    expect(await atAge.textContent())
      .to.include('line 3')
      .and.include('<= 150');
    expect(await page().locator('.field-errors li[data-field="email"]').textContent()).to.include('pattern');
    await h.shot('record-insert-invalid');
    await page().fill('#record-json', '{"name": "Ann", "age": 30, "email": "ann@example.org"}');
    await page().click('button:has-text("Insert")');
    await page().waitForURL(/\/collections\/people\/records\/[\w-]+$/);
    expect(await page().locator('[data-testid="record-json"]').textContent()).to.include('ann@example.org');
    await h.shot('record-inserted');
  });

  it('edits a record and keeps its typed values exact', async () => {
    await h.open('/collections/people/records/typed');
    await page().locator('[data-testid="record-json"]', { hasText: '9223372036854775807' }).waitFor();
    await page().click('a.button:has-text("Edit")');
    await page().waitForURL(/edit=1$/);
    const text = await page().inputValue('#record-json');
    expect(text).to.include('9223372036854775807').and.include('"Decimal"').and.include('"Set"');
    await page().fill('#record-json', text.replace('typed one', 'typed two'));
    await h.shot('record-edit');
    await page().click('button:has-text("Save changes")');
    await page().locator('[data-testid="record-json"]', { hasText: 'typed two' }).waitFor();
    const stored = await h.t.request('GET', '/api/find/people/typed');
    expect(stored.text).to.include('"big":{"type":"Integer","value":9223372036854775807}');
    expect(stored.body.dec).to.deep.equal({ type: 'Decimal', value: '1.50' });
    expect(stored.body.tags).to.deep.equal({ type: 'Set', value: ['a', 'b'] });
    expect(stored.body.when.type).to.equal('DateTime');
  });

  it('deletes with confirmation from the record view and from the table, into the trash', async () => {
    await h.open('/collections/people/records/p1');
    await page().locator('[data-testid="record-json"]').waitFor();
    await page().click('main .title-row button:has-text("Delete")');
    await page().locator('dialog[open]').waitFor();
    await h.shot('record-delete-confirm');
    await page().click('dialog[open] button:has-text("Delete p1")');
    await page().locator('[data-testid="trash-notice"]').waitFor();
    expect(await page().locator('[data-testid="trash-notice"]').textContent()).to.include('trash');
    expect((await h.t.request('GET', '/api/find/people/p1')).status).to.equal(404);
    await h.shot('record-deleted');
    await page().click('button:has-text("Restore p1")');
    await page().locator('[data-testid="record-json"]', { hasText: 'person 1' }).waitFor();

    await h.open('/collections/people');
    await page().locator('tr[data-id="p2"]').waitFor();
    await page().click('tr[data-id="p2"] button:has-text("Delete")');
    await page().click('dialog[open] button:has-text("Delete p2")');
    await page().locator('[data-testid="trash-notice"]').waitFor();
    await page().locator('tr[data-id="p2"]').waitFor({ state: 'detached' });
    expect((await h.t.request('GET', '/api/find/people/p2')).status).to.equal(404);
  });

  it('filters with an Or group and a nested Not, kept in the URL', async () => {
    await h.open('/collections/people');
    await rows().first().waitFor();
    // age <= 40 AND (city = Oslo OR NOT (age < 39))
    await page().click('form[aria-label="Filter"] button:has-text("Add condition")');
    await page().fill('[aria-label="Field of condition 1"]', 'age');
    await page().selectOption('[aria-label="Operator of condition 1"]', 'Lte');
    await page().fill('[aria-label="Value of condition 1"]', '40');
    await page().selectOption('[aria-label="Type of value of condition 1"]', 'number');
    await page().click('[aria-label="Add group to group 1"]');
    await page().fill('[aria-label="Field of condition 2"]', 'city');
    await page().fill('[aria-label="Value of condition 2"]', 'Oslo');
    await page().click('[aria-label="Add group to group 2"]');
    await page().locator('fieldset[data-group="3"] legend select').selectOption('Not');
    await page().fill('[aria-label="Field of condition 3"]', 'age');
    await page().selectOption('[aria-label="Operator of condition 3"]', 'Lt');
    await page().fill('[aria-label="Value of condition 3"]', '39');
    await page().click('form[aria-label="Filter"] summary');
    const preview = await page().locator('[data-testid="filter-json"]').textContent();
    expect(preview).to.include('"Not"').and.include('"Or"');
    await page().click('text=Apply filter');
    const expected = ['p0', 'p12', 'p15', 'p18', 'p19', 'p20', 'p3', 'p6', 'p9'];
    await rowCount(9);
    expect(await rowIds()).to.deep.equal(expected);
    expect(page().url()).to.include('f=');
    await h.shot('records-filter-groups');
    await page().reload();
    await rowCount(9);
    expect(await rowIds()).to.deep.equal(expected);
    expect(await page().inputValue('[aria-label="Value of condition 3"]')).to.equal('39');
  });

  it('offers every operator the server accepts, each giving the records it should', async () => {
    const cases: [string, string, string, string | undefined, number | undefined][] = [
      ['age', 'Eq', '25', 'number', 1],
      ['city', 'Ne', 'Oslo', 'text', undefined],
      ['age', 'Gt', '78', 'number', 1],
      ['age', 'Gte', '78', 'number', 2],
      ['age', 'Lt', '21', 'number', 2],
      ['age', 'Lte', '20', 'number', 2],
      ['age', 'In', '20, 21', 'number', 2],
      ['city', 'NotIn', 'Oslo, Lima', 'text', undefined],
      ['name', 'Contains', 'person 1', undefined, 11],
      ['name', 'StartsWith', 'typed', undefined, 1],
      ['name', 'EndsWith', ' 59', undefined, 1],
      ['big', 'Exists', 'true', undefined, 1],
      ['city', 'Exists', 'false', undefined, 2],
    ];
    for (const [field, operator, value, kind, count] of cases) {
      await h.open('/collections/people');
      await rows().first().waitFor();
      await page().click('form[aria-label="Filter"] button:has-text("Add condition")');
      await page().fill('[aria-label="Field of condition 1"]', field);
      await page().selectOption('[aria-label="Operator of condition 1"]', operator);
      if (operator === 'Exists') await page().selectOption('[aria-label="Value of condition 1"]', value);
      else await page().fill('[aria-label="Value of condition 1"]', value);
      if (kind) await page().selectOption('[aria-label="Type of value of condition 1"]', kind);
      await page().click('text=Apply filter');
      await page().waitForURL(/f=/);
      if (count !== undefined) await rowCount(count);
      else await rows().first().waitFor();
      expect(await page().locator('main .error').count(), `${field} ${operator} ${value}`).to.equal(0);
    }
  });

  it('sorts by a column and shows only the chosen fields', async () => {
    await h.open('/collections/people');
    await rows().first().waitFor();
    await page().click('button[data-sort-field="age"]');
    await page().waitForURL(/sort=age/);
    await page().click('button[data-sort-field="age"]');
    await page().waitForURL(/sort=-age/);
    await page().locator('table.records tbody tr:first-child[data-id="p59"]').waitFor();
    expect(await page().getAttribute('th:has(button[data-sort-field="age"])', 'aria-sort')).to.equal('descending');
    await page().check('form[aria-label="Fields shown"] input[type="radio"] >> nth=1');
    await page().check('form[aria-label="Fields shown"] label:has-text("name") input');
    await page().check('form[aria-label="Fields shown"] label:has-text("age") input');
    await page().click('text=Apply fields');
    await page().waitForURL(/select=/);
    await page().locator('button[data-sort-field="city"]').waitFor({ state: 'detached' });
    const headers = await page()
      .locator('table.records thead button.sort')
      .evaluateAll((bs) => bs.map((b) => b.getAttribute('data-sort-field')));
    expect(headers).to.deep.equal(['id', 'name', 'age']);
    expect(await page().locator('table.records tbody tr:first-child').getAttribute('data-id')).to.equal('p59');
    await h.shot('records-sort-projection');
  });

  it('imports an NDJSON file in batches, the progress bar reaching the end, naming the failed lines', async () => {
    const lines = Array.from({ length: 1100 }, (_, i) => JSON.stringify({ name: `imported ${i}`, age: i % 60 }));
    lines[10] = '{"name": "broken", ';
    lines[20] = JSON.stringify({ id: 'p5', name: 'duplicate id' });
    lines[1050] = JSON.stringify({ name: 'too young', age: -1 });
    await h.open('/collections/people/import');
    await page().setInputFiles('#import-file', {
      name: 'people.ndjson',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(lines.join('\n') + '\n'),
    });
    await page().click('form[aria-label="Import a file"] button[type="submit"]');
    await page().locator('[data-testid="import-summary"]', { hasText: '1,097 inserted, 3 failed' }).waitFor({
      timeout: 30_000,
    });
    await page().locator('label[for="import-progress"]', { hasText: 'Import finished' }).waitFor();
    const bar = await page().$eval('#import-progress', (p) => [p.getAttribute('value'), p.getAttribute('max')]);
    expect(bar).to.deep.equal(['1099', '1099']);
    expect(await page().locator('tr[data-where="line 11"]').textContent()).to.include('not JSON');
    expect(await page().locator('tr[data-where="line 21"]').textContent()).to.include('already exists');
    expect(await page().locator('tr[data-where="line 1051"]').textContent()).to.include('>= 0');
    await h.shot('import-done');
    const count = await h.t.request('GET', '/api/people/count');
    expect(count.body.count).to.equal(61 - 1 + 1 + 1097); // p2 deleted, Ann inserted
  });

  it('exports the filtered records as NDJSON and every record as JSON, a page at a time', async () => {
    const f = JSON.stringify({ logic: 'And', items: [{ field: 'age', operator: 'Gte', value: '70', kind: 'number' }] });
    await h.open(`/collections/people?f=${encodeURIComponent(f)}`);
    await rows().first().waitFor();
    const [ndjson] = await Promise.all([page().waitForEvent('download'), page().click('section.export button')]);
    expect(ndjson.suggestedFilename()).to.equal('people.ndjson');
    const lines = readFileSync(await ndjson.path(), 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l).id).sort()).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => `p${50 + i}`).sort(),
    );
    expect(JSON.parse(lines[0]!).age.type).to.equal('Integer');
    await page().locator('label[for="export-progress"]', { hasText: 'Exported 10' }).waitFor();
    await h.shot('export-done');

    await h.open('/collections/people');
    await rows().first().waitFor();
    await page().selectOption('#export-format', 'json');
    const [json] = await Promise.all([page().waitForEvent('download'), page().click('section.export button')]);
    const text = readFileSync(await json.path());
    const all = JSON.parse(text.toString('utf8')) as { id: string }[];
    expect(all.length).to.equal(1158);
    expect(new Set(all.map((r) => r.id)).size).to.equal(1158);
    expect(text.toString('utf8')).to.include('9223372036854775807');

    // The JSON export imports back into another collection as it was: ids, typed values and every digit.
    await h.open('/collections/copy/import');
    await page().setInputFiles('#import-file', { name: 'people.json', mimeType: 'application/json', buffer: text });
    await page().click('form[aria-label="Import a file"] button[type="submit"]');
    await page().locator('[data-testid="import-summary"]', { hasText: '1,158 inserted, 0 failed' }).waitFor({
      timeout: 30_000,
    });
    const copy = await h.t.request('GET', '/api/find/copy/typed');
    const original = await h.t.request('GET', '/api/find/people/typed');
    expect(copy.text).to.equal(original.text);
  });

  it('works at phone width', async () => {
    await page().setViewportSize({ width: 390, height: 800 });
    const f = JSON.stringify({
      logic: 'And',
      items: [
        { field: 'age', operator: 'Lte', value: '40', kind: 'number' },
        { logic: 'Or', items: [{ field: 'city', operator: 'Eq', value: 'Oslo' }] },
      ],
    });
    await h.open(`/collections/people?f=${encodeURIComponent(f)}`);
    await rows().first().waitFor();
    await h.shot('records-phone');
    await page().setViewportSize({ width: 1100, height: 760 });
  });

  it('limits a key with writable fields to them in the editor', async () => {
    const key = await h.t.request('POST', '/api/auth/keys', {
      name: 'ages only',
      collection_permissions: { people: { read: true, write: true, writable_fields: ['age'] } },
    });
    await h.signIn(key.body.key);
    await h.open('/collections/people/records/p3?edit=1');
    await page().locator('[data-testid="writable-fields"]', { hasText: 'age' }).waitFor();
    const text = await page().inputValue('#record-json');
    await page().fill('#record-json', text.replace('person 3', 'renamed'));
    await page().click('button:has-text("Save changes")');
    await page().locator('.field-errors li[data-field="name"]', { hasText: 'may not write' }).waitFor();
    await h.shot('record-writable-fields');
    await page().fill('#record-json', text.replace('"value": 23', '"value": 24'));
    await page().click('button:has-text("Save changes")');
    await page().locator('[data-testid="record-json"]', { hasText: '24' }).waitFor();
    expect((await h.t.request('GET', '/api/find/people/p3')).body.age.value).to.equal(24);
  });

  it('shows a read-only key the write controls disabled, with the reason', async () => {
    const key = await h.t.request('POST', '/api/auth/keys', {
      name: 'reader',
      collection_permissions: { people: { read: true, write: false } },
    });
    await h.signIn(key.body.key);
    await h.open('/collections/people');
    await rows().first().waitFor();
    const insert = page().locator('main button:has-text("Insert record")');
    await insert.waitFor();
    expect(await insert.isDisabled()).to.equal(true);
    expect(await insert.getAttribute('title')).to.include('may not');
    expect(await page().locator('main button:has-text("Import")').isDisabled()).to.equal(true);
    expect(await page().locator('tr[data-id="p0"] button:has-text("Edit")').isDisabled()).to.equal(true);
    expect(await page().locator('tr[data-id="p0"] button:text-is("Delete")').isDisabled()).to.equal(true);
    await h.shot('records-read-only');
    await h.open('/collections/people/records/p0');
    await page().locator('[data-testid="record-json"]').waitFor();
    expect(await page().locator('main .title-row button:has-text("Edit")').isDisabled()).to.equal(true);
    expect(await page().locator('main .title-row button:text-is("Delete")').isDisabled()).to.equal(true);
    await h.open('/collections/people/import');
    await page().setInputFiles('#import-file', { name: 'x.ndjson', mimeType: 'text/plain', buffer: Buffer.from('{}') });
    expect(await page().locator('form[aria-label="Import a file"] button[type="submit"]').isDisabled()).to.equal(true);
  });
});
