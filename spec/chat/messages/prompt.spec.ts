import { expect } from 'chai';
import {
  buildPrompt,
  CONTEXT_HEADING,
  DEFAULT_SYSTEM_PROMPT,
  SUMMARY_HEADING,
} from '../../../lib/chat/messages/prompt.js';
import { conversation, msg } from './messages.js';

const snippet = {
  collection: 'docs',
  record: { id: 'd1', title: 'Refunds', body: 'within 30 days' },
  score: 2.5,
  matched_fields: ['title'],
};

describe('chat prompt building', () => {
  it('puts the system prompt, then the context, in one leading system message, and the user message last', () => {
    const p = buildPrompt({
      systemPrompt: 'Be brief.',
      snippets: [snippet],
      history: [],
      maxContextMessages: 50,
      userMessage: 'refund?',
    });
    expect(p).to.have.length(2);
    expect(p[0]!.role).to.equal('system');
    expect(p[0]!.content).to.equal(
      `Be brief.\n\n${CONTEXT_HEADING}\n[docs] {"id":"d1","title":"Refunds","body":"within 30 days"}`,
    );
    expect(p[1]).to.deep.equal({ role: 'user', content: 'refund?' });
  });

  it('uses the default system prompt when the session has none and leaves the context out when nothing was found', () => {
    const p = buildPrompt({ systemPrompt: null, snippets: [], history: [], maxContextMessages: 50, userMessage: 'hi' });
    expect(p[0]!.content).to.equal(DEFAULT_SYSTEM_PROMPT);
  });

  it('replays the history in order without forgotten messages', () => {
    const h = conversation(4);
    const forgotten = { ...h[1]!, forgotten: true };
    const p = buildPrompt({
      systemPrompt: 's',
      snippets: [],
      history: [h[0]!, forgotten, h[2]!, h[3]!],
      maxContextMessages: 50,
      userMessage: 'next',
    });
    expect(p.map((m) => m.content)).to.deep.equal(['s', 'q1', 'q2', 'a2', 'next']);
  });

  it('bounds the history by max_context_messages, keeping the most recent', () => {
    const p = buildPrompt({
      systemPrompt: 's',
      snippets: [],
      history: conversation(6),
      maxContextMessages: 3,
      userMessage: 'q4',
    });
    expect(p.map((m) => m.content)).to.deep.equal(['s', 'a2', 'q3', 'a3', 'q4']);
  });

  it('replays no history at all with max_context_messages 0', () => {
    const p = buildPrompt({
      systemPrompt: 's',
      snippets: [],
      history: conversation(4),
      maxContextMessages: 0,
      userMessage: 'x',
    });
    expect(p.map((m) => m.content)).to.deep.equal(['s', 'x']);
  });

  it('includes live compaction summaries in the system message, not as turns, and leaves forgotten ones out', () => {
    const history = [
      msg('system', 'old summary', { summary: true, forgotten: true }),
      msg('system', 'they asked about refunds', { summary: true }),
      ...conversation(2),
    ];
    const p = buildPrompt({ systemPrompt: 's', snippets: [], history, maxContextMessages: 50, userMessage: 'x' });
    expect(p[0]!.content).to.equal(`s\n\n${SUMMARY_HEADING}\nthey asked about refunds`);
    expect(p.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'user']);
  });
});
