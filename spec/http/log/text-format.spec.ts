/**
 * The text log format: pino's JSON lines reformatted as one readable line
 * per entry, with an error's stack and its causes below it.
 */
import { expect } from 'chai';
import { createServerLog } from '../../../lib/http/log/server-log.js';
import { formatTextLine } from '../../../lib/http/log/text-format.js';

function textLog(level: 'debug' | 'info' = 'info') {
  const out: string[] = [];
  return {
    out,
    log: createServerLog({ level, format: 'text', destination: { write: (s: string) => out.push(s) } }).log,
  };
}

describe('http/log/text-format', () => {
  it('writes time, padded level, message and the fields as key=value, quoting strings with spaces, quotes or =', () => {
    const { out, log } = textLog();
    log('warn', 'peer down', {
      peer: 'http://127.0.0.1:9',
      lag: 3,
      note: 'two words',
      url: '/a?b=c',
      empty: '',
      ok: true,
      route: null,
    });
    expect(out).to.have.length(1);
    expect(out[0]).to.match(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARN {2}peer down peer=http:\/\/127\.0\.0\.1:9 lag=3 note="two words" url="\/a\?b=c" empty="" ok=true route=null\n$/,
    );
  });

  it("puts an error's stack and the stacks of its causes on the lines below", () => {
    const { out, log } = textLog();
    const root = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    log('error', 'snapshot failed', new Error('Snapshot failed: storage error ENOSPC', { cause: root }));
    const lines = out.join('').split('\n');
    expect(lines[0]).to.match(/Z ERROR snapshot failed$/);
    expect(lines[1]).to.equal('Error: Snapshot failed: storage error ENOSPC');
    expect(out.join('')).to.match(/caused by: Error: ENOSPC: no space left on device, write\n {4}at /);
  });

  it('drops lines below the level and keeps pino level names', () => {
    const { out, log } = textLog('info');
    log('debug', 'hidden');
    log('trace', 'hidden too');
    log('fatal', 'shown');
    expect(out.map((l) => l.slice(25, 30))).to.deep.equal(['FATAL']);
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(formatTextLine('not json\n')).to.equal('not json\n');
  });
});
