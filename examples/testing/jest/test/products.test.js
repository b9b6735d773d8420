import { openCatalog } from '../src/catalog.js';

let catalog;
beforeAll(async () => {
  catalog = await openCatalog({ url: process.env.EDDYDB_URL, apiKey: process.env.EDDYDB_ADMIN_KEY });
});

test('lists the seeded products of a category, by name', async () => {
  const lighting = await catalog.inCategory('lighting');
  expect(lighting.map((product) => product.name)).toEqual(['desk lamp', 'floor lamp']);
});

test('finds nothing in a category with no products', async () => {
  expect(await catalog.inCategory('garden')).toEqual([]);
});
