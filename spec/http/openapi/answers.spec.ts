/**
 * Real requests through a real server, each answer (success and error)
 * checked against the server's own OpenAPI document for its route and
 * status, and each body the server accepted against the route's request
 * body schema: the document says what the server does, family by family.
 * At the end, every route has been answered at least once.
 */
import { expect } from 'chai';
import { ROUTES } from '../../../lib/http/routing/routes.js';
import { openApiPath } from '../../../lib/http/openapi/index.js';
import { Exchanges } from './exchanges.js';
import { systemAnswers } from './answers/system.js';
import { dataAnswers } from './answers/data.js';
import { logicAnswers } from './answers/logic.js';

describe('answers against the OpenAPI document', function () {
  this.timeout(20_000);
  const h = new Exchanges();
  before(() => h.start());
  after(() => h.stop());

  systemAnswers(h);
  dataAnswers(h);
  logicAnswers(h);

  // A suite of its own: mocha runs a suite's tests before its child suites.
  describe('coverage', () => {
    it('answered every route of the table at least once', () => {
      const missing = ROUTES.map((r) => `${r.method} ${openApiPath(r.path)}`).filter((key) => !h.answered.has(key));
      expect(missing).to.deep.equal([]);
    });

    it('sent every route that documents a body one the server took and the schema accepted', () => {
      const missing = h.documentedBodies().filter((key) => !h.bodiesAccepted.has(key));
      expect(missing).to.deep.equal([]);
    });
  });
});
