/** Log lines of one event-loop turn leave in one write; flush and the size cap write at once. */
import { expect } from 'chai';
import { LineBatcher } from '../../../lib/http/log/line-batcher.js';

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe('http/log/line-batcher', () => {
  it('writes the lines of one turn of the event loop with one write, in order', async () => {
    const writes: string[] = [];
    const b = new LineBatcher({ write: (s) => writes.push(s) });
    b.write('a\n');
    b.write('b\n');
    expect(writes).to.deep.equal([]);
    await nextTurn();
    b.write('c\n');
    await nextTurn();
    expect(writes).to.deep.equal(['a\nb\n', 'c\n']);
  });

  it('writes what is pending at once on flush, and nothing when nothing is pending', async () => {
    const writes: string[] = [];
    const b = new LineBatcher({ write: (s) => writes.push(s) });
    b.write('warn\n');
    b.flush();
    b.flush();
    expect(writes).to.deep.equal(['warn\n']);
    await nextTurn();
    expect(writes).to.deep.equal(['warn\n']);
  });

  it('writes at once when the pending lines reach the cap', () => {
    const writes: string[] = [];
    const b = new LineBatcher({ write: (s) => writes.push(s) }, 10);
    b.write('12345\n');
    b.write('67890\n');
    expect(writes).to.deep.equal(['12345\n67890\n']);
  });
});
