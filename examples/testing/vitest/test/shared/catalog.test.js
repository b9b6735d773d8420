import { EkoDBClient, extractRecord } from '@ekodb/ekodb-client';
import { beforeAll, expect, inject, it } from 'vitest';

const { url, adminKey } = inject('eddy');
const client = new EkoDBClient({ baseURL: url, apiKey: adminKey });
beforeAll(() => client.init());

it('reads the products the global setup seeded', async () => {
  const products = (await client.find('products', {})).map((product) => extractRecord(product));
  expect(products.map((product) => product.name).sort()).toEqual(['book', 'lamp']);
});

it('records a view of a product', async () => {
  const { id } = await client.insert('catalog_views', { product: 'lamp' });
  expect(extractRecord(await client.findById('catalog_views', id)).product).toBe('lamp');
});

it('starts from the seed: the view recorded above is gone', async () => {
  expect(await client.find('catalog_views', {})).toEqual([]);
});
