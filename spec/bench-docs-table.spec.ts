/**
 * The docs/benchmarks.md results table generator (bench/lib/docs-table.ts), on
 * fixture results: never on real measurements, and fast.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { BEGIN, END, generateTable, replaceSection, type ResultFile } from '../bench/lib/docs-table.js';

const machine = {
  cores: 2,
  cpu_model: 'Test CPU',
  node: 'v20.0.0',
  load_tool: 'wrk -t1',
  date: '2026-11-25T20:00:00.000Z',
  commit: 'abc1234',
  noisy: false,
};

function result(over: Partial<ResultFile>): ResultFile {
  return {
    scenario: 'http-read',
    subject: { label: 'eddydb point read', throughput: 35_000, p99_ms: 3.2, cpu_us_per_op: 70 },
    reference: { label: 'bare node:http', throughput: 50_000, p99_ms: 1.5, cpu_us_per_op: 30 },
    ratio: 0.7,
    ratio_of: 'requests/s',
    target: '>= 0.70',
    machine,
    noisy: false,
    ...over,
  };
}

describe('bench results table of docs/benchmarks.md', () => {
  it('has one row per result with subject, reference, ratio, target and a machine key listed below', () => {
    const { markdown } = generateTable([result({})]);
    expect(markdown).to.include(
      '| http-read | eddydb point read: 35,000/s, p99 3.20 ms, 70.0 µs CPU/op | bare node:http: 50,000/s, p99 1.50 ' +
        'ms, 30.0 µs CPU/op | 0.70 | >= 0.70 | m1 |',
    );
    expect(markdown).to.include('- m1: 2 cores, Test CPU, Node v20.0.0, wrk -t1, 2026-11-25, commit abc1234');
  });

  it("expands a result's rows (one per subject) and puts the headline scenarios first", () => {
    const rows = [
      {
        subject: { label: 'insert (always)', throughput: 20_000 },
        reference: { label: 'bare', throughput: 40_000 },
        ratio: 0.5,
        target: '>= 0.50',
      },
      {
        subject: { label: 'insert (none)', throughput: 30_000 },
        reference: { label: 'bare', throughput: 40_000 },
        ratio: 0.75,
      },
    ];
    const { markdown } = generateTable([result({ scenario: 'aaa-other' }), result({ scenario: 'http-insert', rows })]);
    const lines = markdown.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| scenario'));
    expect(lines.map((l) => l.split(' | ')[0])).to.deep.equal(['| http-insert', '| http-insert', '| aaa-other']);
    expect(lines[1]).to.include('insert (none): 30,000/s').and.include('| 0.75 |');
  });

  it('leaves noisy results out unless forced, and marks them when forced', () => {
    const noisy = result({ scenario: 'http-insert', noisy: true });
    const plain = generateTable([result({}), noisy]);
    expect(plain.skippedNoisy).to.deep.equal(['http-insert']);
    expect(plain.markdown).not.to.include('http-insert');
    expect(generateTable([noisy], { force: true }).markdown).to.include('| http-insert (noisy) |');
  });

  it('gives each distinct machine its own key, and says when a result recorded none', () => {
    const other = { ...machine, cores: 8, cpu_model: 'Other CPU' };
    const { markdown } = generateTable([
      result({}),
      result({ scenario: 'ws-read', machine: other }),
      result({ scenario: 'recovery', machine: undefined }),
    ]);
    expect(markdown)
      .to.match(/- m1: 2 cores, Test CPU/)
      .and.match(/- m2: 8 cores, Other CPU/)
      .and.match(/- m3: machine not recorded/);
  });

  it('shows a ratio below 0.01 with two significant digits, not as 0.00', () => {
    const small = (ratio: number) =>
      generateTable([result({ ratio })])
        .markdown.split('\n')
        .find((l) => l.startsWith('| http-read '));
    expect(small(0.000928)).to.include('| 0.00093 |');
    expect(small(0.0123)).to.include('| 0.01 |');
    expect(small(0)).to.include('| 0.00 |');
  });

  it('escapes table separators in labels', () => {
    const { markdown } = generateTable([result({ subject: { label: 'a | b', throughput: 1 } })]);
    expect(markdown).to.include('a \\| b');
  });

  it('replaces only the text between the markers, and refuses a document without them', () => {
    const doc = `# T\nbefore\n${BEGIN}\nold table\n${END}\nafter\n`;
    expect(replaceSection(doc, 'NEW')).to.equal(`# T\nbefore\n${BEGIN}\nNEW\n${END}\nafter\n`);
    expect(() => replaceSection('# no markers', 'NEW')).to.throw(/bench:begin/);
  });

  it('finds both markers in docs/benchmarks.md, so npm run bench:docs has a table to replace', () => {
    const doc = readFileSync('docs/benchmarks.md', 'utf8');
    expect(() => replaceSection(doc, 'NEW')).not.to.throw();
  });
});
