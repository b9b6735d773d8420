/**
 * The benchmark µs table (bench/lib/cpu-profile.ts) on a hand-made CPU
 * profile: categories by script and function, native functions charged to
 * their caller's category, samples outside the load window left out.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { categorize, usTable } from '../bench/lib/cpu-profile.js';

const frame = (functionName: string, url: string) => ({
  functionName,
  url,
  lineNumber: 0,
  columnNumber: 0,
  scriptId: '0',
});

describe('bench µs table', () => {
  it('maps scripts and functions to the steps of a request', () => {
    expect(categorize('file:///x/dist/lib/http/auth/tokens.js', 'authenticate')).to.equal('auth');
    expect(categorize('file:///x/node_modules/fastify/lib/reply.js', 'send')).to.equal('route');
    expect(categorize('file:///x/dist/lib/engine/values/wire/json.js', 'fromJson')).to.equal('parse');
    expect(categorize('file:///x/dist/lib/engine/values/wire/json.js', 'toJson')).to.equal('encode');
    expect(categorize('file:///x/dist/lib/engine/values/wire/to-wire.js', 'recordToWire')).to.equal('typed conversion');
    expect(categorize('', 'fdatasync')).to.equal('fsync wait');
    expect(categorize('node:_http_common', 'parserOnHeadersComplete')).to.equal('parse');
    expect(categorize('file:///x/dist/lib/engine/records/records.js', 'liveEntry')).to.equal('other');
    expect(categorize('', 'writeBuffer', 'log append')).to.equal('log append');
  });

  it('charges self time inside the window per request, native functions to their caller', () => {
    const nodes = [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 6] },
      { id: 2, callFrame: frame('writeSync', 'node:fs'), children: [4] },
      { id: 3, callFrame: frame('writeGeneric', 'node:internal/stream_base_commons'), children: [5] },
      { id: 4, callFrame: frame('writeBuffer', ''), children: [] },
      { id: 5, callFrame: frame('writeBuffer', ''), children: [] },
      { id: 6, callFrame: frame('(idle)', ''), children: [] },
    ];
    // Samples at t = 1000 (outside), 2000, 3000, 4000, 5000, 6000; each lasts until the next.
    const profile = {
      nodes,
      startTime: 0,
      endTime: 7000,
      samples: [4, 4, 5, 5, 6, 4],
      timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000],
    };
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-profile-'));
    try {
      const file = path.join(dir, 'p.cpuprofile');
      writeFileSync(file, JSON.stringify(profile));
      const t = usTable(file, 1500, 5500, 10);
      expect(t.us_per_request['log append']).to.equal(100); // the sample at 2000
      expect(t.us_per_request.write).to.equal(200); // the samples at 3000 and 4000
      expect(t.total_us_per_request).to.equal(300); // idle at 5000 excluded, 1000 and 6000 outside the window
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
