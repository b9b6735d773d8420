/**
 * A chat session on the built-in `local` provider through a real server,
 * with no provider passed in: the server's own provider directory (the
 * settings) serves it, retrieval finds the record, the offline answer
 * quotes the question and the context, and both messages are stored.
 */
import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

describe('HTTP chat: a session on the offline local provider', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  it('answers from the retrieved context and stores the exchange', async () => {
    expect(
      (
        await t.request('POST', '/api/insert/docs', {
          title: 'Shipping',
          body: 'Parcels leave the warehouse every Tuesday.',
        })
      ).status,
    ).to.equal(201);
    const created = await t.request('POST', '/api/chat', {
      collections: [{ collection_name: 'docs', fields: [] }],
      llm_provider: 'local',
    });
    expect(created.status).to.equal(200);
    const chatId = created.body.chat_id as string;
    const sent = await t.request('POST', `/api/chat/${chatId}/messages`, {
      message: 'When do parcels leave the warehouse?',
    });
    expect(sent.status).to.equal(200);
    expect(sent.body.responses[0]).to.include('Question: When do parcels leave the warehouse?');
    expect(sent.body.responses[0]).to.include('Tuesday');
    expect(sent.body.context_snippets[0].collection).to.equal('docs');
    expect(sent.body.token_usage.total_tokens).to.be.greaterThan(0);
    const messages = await t.request('GET', `/api/chat/${chatId}/messages`);
    expect(messages.body.total).to.equal(2);
  });
});
