import { expect } from 'chai';
import { planCompaction, summaryRequest, SUMMARIZE_INSTRUCTION } from '../../../lib/chat/messages/compaction.js';
import { conversation, msg } from './messages.js';

describe('chat compaction plan', () => {
  it('folds all but the most recent keep_recent live messages', () => {
    const h = conversation(10);
    const plan = planCompaction(h, 4);
    expect(plan.fold.map((m) => m.content)).to.deep.equal(['q1', 'a1', 'q2', 'a2', 'q3', 'a3']);
    expect(plan.kept.map((m) => m.content)).to.deep.equal(['q4', 'a4', 'q5', 'a5']);
    expect(plan.summaries).to.deep.equal([]);
  });

  it('folds every live message with keep_recent 0', () => {
    const plan = planCompaction(conversation(4), 0);
    expect(plan.fold).to.have.length(4);
    expect(plan.kept).to.deep.equal([]);
  });

  it('has nothing to fold when the live messages fit (already compact)', () => {
    const plan = planCompaction(conversation(4), 50);
    expect(plan.fold).to.deep.equal([]);
    expect(plan.kept).to.have.length(4);
  });

  it('ignores forgotten messages and folds the earlier live summary into the new one', () => {
    const summary = msg('system', 'earlier', { summary: true });
    const h = [msg('user', 'gone', { forgotten: true }), summary, ...conversation(4)];
    const plan = planCompaction(h, 2);
    expect(plan.summaries).to.deep.equal([summary]);
    expect(plan.fold.map((m) => m.content)).to.deep.equal(['q1', 'a1']);
  });

  it('asks for a summary with the instruction and a transcript naming each role', () => {
    const req = summaryRequest([msg('system', 'before', { summary: true }), ...conversation(2)]);
    expect(req[0]).to.deep.equal({ role: 'system', content: SUMMARIZE_INSTRUCTION });
    expect(req[1]).to.deep.equal({ role: 'user', content: 'summary: before\nuser: q1\nassistant: a1' });
  });
});
