import { describe, expect, it } from 'vitest';
import { Shop } from '../../src/shop.js';
import { useTestServer } from './use-test-server.js';

const context = useTestServer({
  seed: { collections: { orders: [{ item: 'lamp', quantity: 1, status: 'placed' }] } },
});
const shop = () => new Shop(context.client);

describe('orders', () => {
  it('places an order and finds it beside the seeded one', async () => {
    await shop().placeOrder('book', 2);
    const orders = await shop().orders();
    expect(orders.map((order) => [order.item, order.quantity])).toEqual([
      ['lamp', 1],
      ['book', 2],
    ]);
  });

  it('starts each test from the seed: the order placed above is gone', async () => {
    expect((await shop().orders()).map((order) => order.item)).toEqual(['lamp']);
  });

  it('goes back to a checkpoint', async () => {
    const [lamp] = await shop().orders();
    const beforeCancel = await context.eddy.checkpoint();
    await shop().cancel(lamp.id);
    expect(await shop().orders()).toEqual([]);
    await context.eddy.restore(beforeCancel);
    expect((await shop().orders()).map((order) => order.item)).toEqual(['lamp']);
  });
});
