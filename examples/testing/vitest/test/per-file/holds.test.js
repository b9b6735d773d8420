import { describe, expect, it } from 'vitest';
import { Shop } from '../../src/shop.js';
import { useTestServer } from './use-test-server.js';

const context = useTestServer({ clock: { start: '2030-01-01T09:00:00Z', frozen: true }, ids: 'holds' });
const shop = () => new Shop(context.client);
let firstId;

describe('cart holds', () => {
  it('keeps a hold for 15 minutes, without the test waiting for them', async () => {
    const hold = await shop().hold('lamp');
    await context.eddy.clock.advance('14m');
    expect(await shop().isHeld(hold)).toBe(true);
    await context.eddy.clock.advance('2m');
    expect(await shop().isHeld(hold)).toBe(false);
    firstId = hold;
  });

  it('starts each test at the same time, making the same ids', async () => {
    expect(context.eddy.clock.date().toISOString()).toBe('2030-01-01T09:00:00.000Z');
    expect(await shop().hold('lamp')).toBe(firstId);
  });
});
