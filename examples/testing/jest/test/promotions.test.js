import { openCatalog } from '../src/catalog.js';
import { moveEddyClock } from './eddy-control.js';

let catalog;
beforeAll(async () => {
  catalog = await openCatalog({ url: process.env.EDDYDB_URL, apiKey: process.env.EDDYDB_ADMIN_KEY });
});

test('ends a promotion after its 10 minutes, the server clock moved by URL', async () => {
  await catalog.promote('desk lamp', '10m');
  await moveEddyClock({ advance: '9m' });
  expect(await catalog.promoted()).toEqual(['desk lamp']);
  await moveEddyClock({ advance: '2m' });
  expect(await catalog.promoted()).toEqual([]);
});
