/**
 * The route table and the WebSocket message table against the inventory of
 * protocol.md (2.17 and the sections it summarises, 3.4): a route the clients
 * call and the server lacks is a failing test with its name, not a 404 found
 * by a client. Routes of later issues are listed in pending.ts and must not
 * be served yet; everything else must be.
 */
import { expect } from 'chai';
import { extractInventory } from './extract-inventory.js';
import { MESSAGE_INVENTORY, ROUTE_INVENTORY } from './inventory.js';
import { PENDING, pendingIssueOfMessage, pendingIssueOfRoute } from './pending.js';
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

    it('holds every route and message type pending.ts names, so a typo there cannot hide a route', () => {
      const routes = new Set(ROUTE_INVENTORY.map((r) => `${r.method} ${r.path}`));
      const types = new Set(MESSAGE_INVENTORY.map((m) => m.type));
      const unknown = Object.entries(PENDING).flatMap(([issue, work]) =>
        [...work.routes.filter((r) => !routes.has(r)), ...work.messageTypes.filter((t) => !types.has(t))].map(
          (entry) => `issue ${issue}: ${entry}`,
        ),
      );
      expect(unknown).to.deep.equal([]);
    });

    it('names each pending entry under one issue only', () => {
      const entries = Object.values(PENDING).flatMap((work) => [...work.routes, ...work.messageTypes]);
      expect(entries.filter((e, i) => entries.indexOf(e) !== i)).to.deep.equal([]);
    });
  });

  describe('HTTP routes (protocol.md section 2)', () => {
    for (const { method, path, section } of ROUTE_INVENTORY) {
      const route = `${method} ${path}`;
      const issue = pendingIssueOfRoute(route);
      if (issue === undefined) {
        it(`serves ${route} (protocol.md ${section})`, () => {
          expect(
            isServed(method, path),
            `${route} is in protocol.md ${section} but not in lib/http/routing/routes.ts`,
          ).to.equal(true);
        });
      } else {
        it(`does not serve ${route} yet (issue ${issue}: ${PENDING[issue]!.topic})`, () => {
          expect(
            isServed(method, path),
            `${route} is served now: remove it from PENDING[${issue}] in spec/protocol/pending.ts`,
          ).to.equal(false);
        });
      }
    }
  });

  describe('WebSocket message types (protocol.md 3.4)', () => {
    for (const { type } of MESSAGE_INVENTORY) {
      const issue = pendingIssueOfMessage(type);
      if (issue === undefined) {
        it(`serves ${type}`, () => {
          expect(
            servedTypes.has(type),
            `${type} is in protocol.md 3.4 but not in the WebSocket message table`,
          ).to.equal(true);
        });
      } else {
        it(`does not serve ${type} yet (issue ${issue}: ${PENDING[issue]!.topic})`, () => {
          expect(
            servedTypes.has(type),
            `${type} is served now: remove it from PENDING[${issue}] in spec/protocol/pending.ts`,
          ).to.equal(false);
        });
      }
    }
  });
});
