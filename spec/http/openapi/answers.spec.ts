/**
 * Real requests through a real server, each answer (success and error)
 * checked against the server's own OpenAPI document for its route and
 * status, and each body the server accepted against the route's request
 * body schema: the document says what the server does, family by family.
 */
import { Exchanges } from './exchanges.js';
import { systemAnswers } from './answers/system.js';
import { dataAnswers } from './answers/data.js';

describe('answers against the OpenAPI document', function () {
  this.timeout(20_000);
  const h = new Exchanges();
  before(() => h.start());
  after(() => h.stop());

  systemAnswers(h);
  dataAnswers(h);
});
