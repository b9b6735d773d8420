/**
 * The route table and the WebSocket message table against the inventory of
 * protocol.md (2.17 and the sections it summarises, 3.4): a route the clients
 * call and the server lacks is a failing test with its name, not a 404 found
 * by a client.
 */
import { expect } from 'chai';
import { extractInventory } from './extract-inventory.js';
import { MESSAGE_INVENTORY, ROUTE_INVENTORY } from './inventory.js';
import { findProtocolMd, readProtocolMd } from './protocol-md.js';
import { routeKey } from './route-key.js';
import { servedMessageTypes, servedRoutes } from './served.js';

const served = new Set(servedRoutes().map((r) => routeKey(r.method, r.path)));
const servedTypes = new Set(servedMessageTypes());
const isServed = (method: string, path: string) => served.has(routeKey(method, path));

describe('protocol inventory', () => {
  describe('the checked-in inventory', () => {
    it('is what extract-inventory.ts reads from protocol.md today', function () {
      const file = findProtocolMd();
      if (!file) this.skip(); // a clean clone has no docs beside it
      expect(
        extractInventory(readProtocolMd(file!)),
        `${file} changed: run npx tsx spec/protocol/extract-inventory.ts`,
      ).to.deep.equal({ routes: ROUTE_INVENTORY, messages: MESSAGE_INVENTORY });
    });
  });

  describe('HTTP routes (protocol.md section 2)', () => {
    for (const { method, path, section } of ROUTE_INVENTORY) {
      const route = `${method} ${path}`;
      it(`serves ${route} (protocol.md ${section})`, () => {
        expect(
          isServed(method, path),
          `${route} is in protocol.md ${section} but not in lib/http/routing/routes.ts`,
        ).to.equal(true);
      });
    }
  });

  describe('WebSocket message types (protocol.md 3.4)', () => {
    for (const { type } of MESSAGE_INVENTORY) {
      it(`serves ${type}`, () => {
        expect(servedTypes.has(type), `${type} is in protocol.md 3.4 but not in the WebSocket message table`).to.equal(
          true,
        );
      });
    }
  });
});
