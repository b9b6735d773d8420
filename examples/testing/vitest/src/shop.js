/**
 * The application under test: a shop's orders and cart holds, kept in ekoDB through the official
 * TypeScript client. Tests hand it a client on a test server; production, one on the real server.
 */
import { QueryBuilder, extractRecord } from '@ekodb/ekodb-client';

export class Shop {
  constructor(client) {
    this.client = client;
  }

  /** Places an order; answers its id. */
  async placeOrder(item, quantity) {
    return (await this.client.insert('orders', { item, quantity, status: 'placed' })).id;
  }

  /** The orders in a status, with plain values, in the order they were placed. */
  async orders(status = 'placed') {
    const found = await this.client.find('orders', new QueryBuilder().eq('status', status));
    return found.map((order) => extractRecord(order));
  }

  async cancel(orderId) {
    await this.client.update('orders', orderId, { status: 'cancelled' });
  }

  /** Holds an item in a cart for 15 minutes; answers the hold's id. */
  async hold(item) {
    return (await this.client.insert('holds', { item }, { ttl: '15m' })).id;
  }

  /** Whether a hold is still on: an expired hold is gone. */
  async isHeld(holdId) {
    return this.client.findById('holds', holdId).then(
      () => true,
      () => false,
    );
  }
}
