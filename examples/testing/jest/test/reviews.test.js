import { openCatalog } from '../src/catalog.js';

let catalog;
beforeAll(async () => {
  catalog = await openCatalog({ url: process.env.EDDYDB_URL, apiKey: process.env.EDDYDB_ADMIN_KEY });
});

test('rates a product by the mean of its reviews', async () => {
  await catalog.review('notebook', 5, 'smooth paper');
  await catalog.review('notebook', 3, 'thin cover');
  expect(await catalog.rating('notebook')).toBe(4);
});

test('starts from the seed: the reviews written by the test above are gone', async () => {
  expect(await catalog.rating('notebook')).toBeUndefined();
});

test('has no rating for a product without reviews', async () => {
  expect(await catalog.rating('desk lamp')).toBeUndefined();
});
