import { expect } from 'chai';
import {
  branchMessages,
  exchanges,
  mergedMessages,
  parseMergeStrategy,
  summarizedSources,
} from '../../../lib/chat/chat-sessions/merge-strategies.js';
import { msg } from '../messages/messages.js';

// Two sessions whose messages were written alternately in time: a1q a1a b1q b1a a2q a2a b2q b2a.
const aQ1 = msg('user', 'A-q1', { chat_id: 'A' }),
  aA1 = msg('assistant', 'A-a1', { chat_id: 'A' });
const bQ1 = msg('user', 'B-q1', { chat_id: 'B' }),
  bA1 = msg('assistant', 'B-a1', { chat_id: 'B' });
const aQ2 = msg('user', 'A-q2', { chat_id: 'A' }),
  aA2 = msg('assistant', 'A-a2', { chat_id: 'A' });
const bQ2 = msg('user', 'B-q2', { chat_id: 'B' }),
  bA2 = msg('assistant', 'B-a2', { chat_id: 'B' });
const aQ3 = msg('user', 'A-q3', { chat_id: 'A' });
const A = { chatId: 'A', messages: [aQ1, aA1, aQ2, aA2, aQ3] };
const B = { chatId: 'B', messages: [bQ1, bA1, bQ2, bA2] };
const contents = (ms: ReadonlyArray<{ content: string }>) => ms.map((m) => m.content);

describe('chat merge strategies', () => {
  it('Chronological takes every message of every source by creation time', () => {
    expect(contents(mergedMessages('Chronological', [B, A]))).to.deep.equal([
      'A-q1',
      'A-a1',
      'B-q1',
      'B-a1',
      'A-q2',
      'A-a2',
      'B-q2',
      'B-a2',
      'A-q3',
    ]);
  });

  it('Interleaved takes one exchange from each source in turn, in the order the sources are given', () => {
    expect(contents(mergedMessages('Interleaved', [B, A]))).to.deep.equal([
      'B-q1',
      'B-a1',
      'A-q1',
      'A-a1',
      'B-q2',
      'B-a2',
      'A-q2',
      'A-a2',
      'A-q3',
    ]);
  });

  it('LatestOnly takes the most recent exchange of each source', () => {
    expect(contents(mergedMessages('LatestOnly', [A, B]))).to.deep.equal(['B-q2', 'B-a2', 'A-q3']);
  });

  it('leaves forgotten messages behind', () => {
    const withForgotten = { chatId: 'A', messages: [aQ1, { ...aA1, forgotten: true }] };
    expect(contents(mergedMessages('Chronological', [withForgotten]))).to.deep.equal(['A-q1']);
    expect(summarizedSources([withForgotten])[0]!.messages).to.have.length(1);
  });

  it('Summarized summarizes each source with live messages, skipping empty ones', () => {
    const empty = { chatId: 'E', messages: [] };
    expect(summarizedSources([A, empty, B]).map((s) => s.chatId)).to.deep.equal(['A', 'B']);
  });

  it("accepts the clients' PascalCase and the contract's lowercase spellings", () => {
    expect(parseMergeStrategy('Chronological')).to.equal('Chronological');
    expect(parseMergeStrategy('chronological')).to.equal('Chronological');
    expect(parseMergeStrategy('interleaved')).to.equal('Interleaved');
    expect(parseMergeStrategy('latest_only')).to.equal('LatestOnly');
    expect(() => parseMergeStrategy('Random')).to.throw(/merge_strategy/);
    expect(() => parseMergeStrategy(3)).to.throw(/merge_strategy/);
  });

  it('groups a conversation into exchanges, each starting at a user message', () => {
    expect(exchanges(A.messages).map(contents)).to.deep.equal([['A-q1', 'A-a1'], ['A-q2', 'A-a2'], ['A-q3']]);
  });
});

describe('chat branching', () => {
  it("starts with the parent's messages up to and including branch_point_idx", () => {
    expect(contents(branchMessages(A.messages, 1))).to.deep.equal(['A-q1', 'A-a1']);
    expect(contents(branchMessages(A.messages, 0))).to.deep.equal(['A-q1']);
  });

  it('takes every message when no index is given', () => {
    expect(branchMessages(A.messages, null)).to.have.length(5);
  });

  it("refuses an index past the parent's last message", () => {
    expect(() => branchMessages(A.messages, 5)).to.throw(/branch_point_idx.*past/);
  });
});
