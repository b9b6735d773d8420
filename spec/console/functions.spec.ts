/**
 * The Functions pages in a real headless Chromium: create a function whose save is refused with the step path
 * shown and marked, fix it, run it through the parameter form with its stage statistics, save it again and see
 * (and restore) the earlier version in its history; a restricted key sees the controls disabled and why.
 */
import { expect } from 'chai';
import { consoleHarness } from '../helpers/console-browser.js';

const definition = (stepType: string, description = 'people at least min_age years old') => ({
  label: 'adults',
  name: 'Adults',
  description,
  parameters: {
    min_age: { required: false, default: 18, description: 'lowest age', param_type: 'Integer' },
    city: { required: true, param_type: 'String', description: 'the city they live in' },
  },
  functions: [
    {
      type: 'Query',
      collection: 'people',
      filter: {
        type: 'Logical',
        content: {
          operator: 'And',
          expressions: [
            { type: 'Condition', content: { field: 'age', operator: 'Gte', value: '{{min_age}}' } },
            { type: 'Condition', content: { field: 'city', operator: 'Eq', value: '{{city}}' } },
          ],
        },
      },
    },
    { type: 'If', condition: { type: 'HasRecords' }, then_functions: [{ type: stepType, fields: ['name', 'age'] }] },
  ],
});

describe('console: stored functions (headless chromium)', function () {
  this.timeout(40_000);
  const h = consoleHarness({
    seed: async (t) => {
      const people = Array.from({ length: 12 }, (_, i) => ({
        name: `person ${i}`,
        age: 20 + i * 3,
        city: i % 2 ? 'Lyon' : 'Oslo',
      }));
      await t.request('POST', '/api/batch/insert/people', { inserts: people.map((data) => ({ data })) });
    },
  });

  it('shows the empty list, then refuses a bad definition at its step path and marks the step', async () => {
    await h.open('/functions');
    await h.page.locator('text=No stored functions yet.').waitFor();
    await h.page.click('button:has-text("New function")');
    expect(h.page.url()).to.match(/\/functions\?new=1$/);
    const text = JSON.stringify(definition('Projekt'), null, 2);
    await h.page.fill('#new-definition', text);
    await h.page.click('button:has-text("Create")');
    const path = h.page.locator('[data-testid="refused-path"]');
    await path.waitFor();
    expect(await path.textContent()).to.include('functions[1].then_functions[0]');
    expect(await h.page.locator('[data-testid="refused-message"]').textContent()).to.include("'Projekt'");
    // The line it names is the step's line in the text, and the gutter marks it.
    const stepLine = text.split('\n').findIndex((l) => l.includes('"Projekt"')) - 1 + 1; // the step's "{" line
    const focus = h.page.locator('.gutter .focus');
    expect(Number(await focus.textContent())).to.equal(stepLine);
    expect(await path.textContent()).to.include(`line ${stepLine}`);
    expect(await h.page.locator('.gutter .marked').count()).to.be.greaterThan(1);
    expect(await h.page.locator('.step-outline [aria-current="step"]').textContent()).to.include('Projekt');
    // The path is a link to the step: the caret goes there with the step selected.
    await path.click();
    const selected = await h.page.$eval('#new-definition', (el) => {
      const t = el as unknown as { value: string; selectionStart: number; selectionEnd: number };
      return t.value.slice(t.selectionStart, t.selectionEnd);
    });
    expect(selected).to.include('"Projekt"');
    await h.shot('function-save-refused');
  });

  it('saves the fixed definition and lists it with its parameters and step count', async () => {
    await h.page.fill('#new-definition', JSON.stringify(definition('Project'), null, 2));
    await h.page.click('button:has-text("Create")');
    await h.page.waitForURL(/\/functions\/adults$/);
    await h.page.locator('h1', { hasText: 'Adults (adults)' }).waitFor();
    await h.shot('function-definition');
    await h.page.click('nav.sections a[href="/functions"]');
    const row = h.page.locator('tr[data-function="adults"]');
    await row.waitFor();
    expect(await row.locator('[data-testid="step-count"]').textContent()).to.equal('3');
    expect(await row.textContent())
      .to.include('min_age')
      .and.include('city');
    await h.shot('functions');
  });

  it('runs it through the parameter form and shows the records and the stage statistics', async () => {
    await h.page.click('a[aria-label="Run adults"]');
    await h.page.locator('#arg-city').waitFor();
    expect(await h.page.getAttribute('#arg-city', 'required')).to.not.equal(null);
    expect(await h.page.getAttribute('#arg-min_age', 'placeholder')).to.equal('default: 18');
    await h.page.fill('#arg-min_age', '35');
    await h.page.fill('#arg-city', 'Lyon');
    await h.page.click('button:has-text("Run")');
    await h.page.locator('[data-testid="run-result"]').waitFor();
    // Ages 20 + 3i for odd i (Lyon): 23, 29, 35, 41, 47, 53 → four at least 35.
    expect(await h.page.locator('[data-testid="output-count"]').textContent()).to.equal('4');
    expect(await h.page.locator('[data-testid="result-records"] tbody tr').count()).to.equal(4);
    const stages = await h.page.locator('[data-testid="stage-stats"] tbody tr').allTextContents();
    expect(stages[0]).to.include('Query');
    expect(stages.join(' ')).to.include('If');
    expect(h.page.url()).to.include('arg.city=Lyon');
    await h.shot('function-run');
  });

  it('keeps the replaced definition in the history, compares it and restores it', async () => {
    await h.page.click('nav.tabs a:has-text("Definition")');
    const text = JSON.stringify(definition('Project', 'the adults of one city'), null, 2);
    await h.page.fill('#definition', text);
    await h.page.click('button:has-text("Save")');
    await h.page.locator('dd', { hasText: 'the adults of one city' }).waitFor();
    await h.page.click('nav.tabs a:has-text("History")');
    const rows = h.page.locator('[data-testid="history"] tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).to.equal(1);
    await rows.first().locator('a:has-text("Compare")').click();
    await h.page.locator('.diff-removed', { hasText: 'people at least min_age years old' }).waitFor();
    await h.page.locator('.diff-added', { hasText: 'the adults of one city' }).waitFor();
    await h.shot('function-history');
    await h.page.click('button:has-text("Restore this version")');
    await h.page.click('dialog[open] button:has-text("Restore")');
    await h.page.locator('dd', { hasText: 'people at least min_age years old' }).waitFor();
    await rows.nth(1).waitFor();
    expect(await rows.count()).to.equal(2);
  });

  it('shows a restricted key the page with saving, deleting and the history disabled, saying why', async () => {
    const key = await h.t.request('POST', '/api/auth/keys', { name: 'reader', collection_permissions: {} });
    await h.signIn(key.body.key as string);
    await h.open('/functions/adults');
    await h.page.locator('[data-testid="admin-only"]').waitFor();
    const save = h.page.locator('button[type="submit"]:has-text("Save")');
    expect(await save.isDisabled()).to.equal(true);
    expect(await save.getAttribute('title')).to.include('admin');
    expect(await h.page.locator('button:has-text("Delete function")').isDisabled()).to.equal(true);
    await h.shot('function-restricted');
    await h.page.click('nav.tabs a:has-text("History")');
    await h.page.locator('[data-testid="history-admin-only"]').waitFor();
    await h.page.click('nav.tabs a:has-text("Run")');
    await h.page.fill('#arg-city', 'Oslo');
    await h.page.click('button:has-text("Run")');
    await h.page.locator('[data-testid="run-result"]').waitFor();
  });

  it('works at phone width', async () => {
    await h.signIn();
    await h.page.setViewportSize({ width: 390, height: 800 });
    await h.open('/functions?new=1');
    await h.page.fill('#new-definition', JSON.stringify(definition('Projekt'), null, 2));
    await h.page.click('button:has-text("Create")');
    await h.page.locator('[data-testid="refused-path"]').waitFor();
    await h.shot('function-refused-phone');
    await h.open('/functions/adults?view=run&arg.city=Oslo');
    await h.page.click('button:has-text("Run")');
    await h.page.locator('[data-testid="run-result"]').waitFor();
    await h.shot('function-run-phone');
  });
});
