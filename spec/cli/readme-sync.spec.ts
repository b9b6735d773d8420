/**
 * Issue 9: the README's configuration and offline-tools tables say what the
 * option tables say. Every generated row must appear in README.md
 * verbatim (the failure shows the row to paste), and every flag the
 * configuration table names must exist, so neither can drift.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { configurationRows, toolCommandRows, toolOptionRows } from '../../lib/cli/args/readme-tables.js';
import { COMMANDS } from '../../lib/cli/args/commands.js';

const README = readFileSync('README.md', 'utf8');
const readmeLines = new Set(README.split('\n'));

describe('README tables kept in sync with the CLI option tables (issue 9)', () => {
  it('holds every configuration row of the start command verbatim', () => {
    const missing = configurationRows().filter((r) => !readmeLines.has(r));
    expect(missing, `rows to put in README.md's Configuration table:\n${missing.join('\n')}`).to.deep.equal([]);
  });

  it('holds every offline tool and tool option row verbatim', () => {
    const missing = [...toolCommandRows(), ...toolOptionRows()].filter((r) => !readmeLines.has(r));
    expect(missing, `rows to put in README.md's offline tools tables:\n${missing.join('\n')}`).to.deep.equal([]);
  });

  it('names no flag in the configuration table that eddydb start does not take', () => {
    const start = README.indexOf('| flag | environment | default | meaning |');
    const table = README.slice(start, README.indexOf('\n\n', start)).split('\n').slice(2);
    const flags = new Set(COMMANDS.start.options.filter((o) => o.isFlag).map((o) => `--${o.name}`));
    const named = table.map((r) => /^\| `(--[a-z-]+)`/.exec(r)?.[1]).filter((f): f is string => f !== undefined);
    expect(named.length).to.be.greaterThan(10);
    expect(named.filter((f) => !flags.has(f))).to.deep.equal([]);
  });
});
