import { expect } from 'chai';
import { parseCreateRequest, parseUpdateRequest } from '../../../lib/chat/chat-sessions/chat-session-config.js';
import { retrievalPlan } from '../../../lib/chat/messages/retrieval-plan.js';
import { parseMerge, parseMessageRequest, parseToolResult } from '../../../lib/chat/messages/message-request.js';

describe('chat request parsing', () => {
  it('reads a create request and keeps collection fields exactly as sent', () => {
    const fields = ['title', { field_name: 'body', search_options: { weight: 2 } }];
    const { create } = parseCreateRequest({
      llm_provider: 'openai',
      collections: [{ collection_name: 'docs', fields }],
      max_context_messages: 10,
    });
    expect(create.settings.collections[0]!.fields).to.equal(fields);
    expect(create.settings.max_context_messages).to.equal(10);
    expect(create.settings.llm_model).to.equal(null);
  });

  it('refuses a missing provider, unknown members, bad collection names and bad field entries', () => {
    expect(() => parseCreateRequest({ collections: [] })).to.throw(/llm_provider/);
    expect(() => parseCreateRequest({ llm_provider: 'openai', colections: [] })).to.throw(
      /Unknown member 'colections'/,
    );
    expect(() =>
      parseCreateRequest({ llm_provider: 'openai', collections: [{ collection_name: '__proto__' }] }),
    ).to.throw();
    expect(() =>
      parseCreateRequest({
        llm_provider: 'openai',
        collections: [{ collection_name: 'd', fields: [{ field_name: 'constructor' }] }],
      }),
    ).to.throw(/constructor/);
    expect(() =>
      parseCreateRequest({ llm_provider: 'openai', collections: [{ collection_name: 'd', fields: [7] }] }),
    ).to.throw(/fields\[0\]/);
    expect(() => parseCreateRequest({ llm_provider: 'openai', max_context_messages: -1 })).to.throw(
      /max_context_messages/,
    );
  });

  it("plans text fields with weights, vector fields, and the collection's search options", () => {
    const plan = retrievalPlan({
      collection_name: 'docs',
      fields: [
        'title',
        { field_name: 'body', search_options: { weight: 3 } },
        { field: 'embedding', search_options: { type: 'vector' } },
      ],
      search_options: { fuzzy_match: true, min_score: 0.5, limit: 3 },
    });
    expect(plan.textFields).to.deep.equal(['title', 'body']);
    expect({ ...plan.weights }).to.deep.equal({ body: 3 });
    expect(plan.vectorFields).to.deep.equal(['embedding']);
    expect([plan.fuzzy, plan.minScore, plan.limit]).to.deep.equal([true, 0.5, 3]);
    expect(() => retrievalPlan({ collection_name: 'd', fields: [], search_options: { fuzzy_match: 'yes' } })).to.throw(
      /fuzzy_match/,
    );
  });

  it('reads an update with only the members given, null clearing an optional one', () => {
    const { patch } = parseUpdateRequest({ title: 'T', system_prompt: null });
    expect(patch).to.deep.equal({ title: 'T', system_prompt: null });
    expect(() => parseUpdateRequest({ llm_provider: 'x' })).to.throw(/Unknown member/);
  });

  it('requires a non-empty message and validates the tool members', () => {
    expect(parseMessageRequest({ message: 'hi', llm_model: 'm2' })).to.deep.equal({
      message: 'hi',
      bypassRipple: false,
      forceSummarize: false,
      model: 'm2',
      tools: { clientTools: [], excludeTools: [] },
    });
    expect(() => parseMessageRequest({})).to.throw(/message/);
    expect(() => parseMessageRequest({ message: '  ' })).to.throw(/message/);
    expect(() => parseMessageRequest({ message: 'x', client_tools: [{ description: 'no name' }] })).to.throw(
      /client_tools\[0\]\.name/,
    );
    expect(() => parseMessageRequest({ message: 'x', exclude_tools: [1] })).to.throw(/exclude_tools/);
  });

  it('reads both merge spellings and refuses a mix of them', () => {
    expect(
      parseMerge({ source_chat_ids: ['a', 'b'], target_chat_id: 't', merge_strategy: 'Interleaved' }),
    ).to.deep.equal({ sources: ['a', 'b'], target: 't', strategy: 'Interleaved', bypassRipple: false });
    expect(parseMerge({ session_ids: ['a'], strategy: 'chronological', llm_provider: 'openai' })).to.deep.equal({
      sources: ['a'],
      strategy: 'Chronological',
      provider: 'openai',
      bypassRipple: false,
    });
    expect(() => parseMerge({ session_ids: ['a'], source_chat_ids: ['b'] })).to.throw(/not both/);
    expect(() => parseMerge({ session_ids: [] })).to.throw(/session_ids/);
  });

  it('reads a tool result or a keep-alive', () => {
    expect(parseToolResult({ call_id: 'c', success: true, result: { n: 1 } })).to.deep.equal({
      kind: 'result',
      callId: 'c',
      success: true,
      result: { n: 1 },
    });
    expect(parseToolResult({ call_id: 'c', keepalive: true })).to.deep.equal({ kind: 'keepalive', callId: 'c' });
    expect(() => parseToolResult({ call_id: 'c' })).to.throw(/success/);
    expect(() => parseToolResult({ success: true })).to.throw(/call_id/);
    expect(() => parseToolResult({ call_id: 'c', keepalive: true, success: true })).to.throw(/keep-alive/);
  });
});
