/**
 * The documentation's option tables say what the command tables say. Every
 * generated row must appear verbatim in docs/configuration.md (the start
 * options) or docs/operations.md (the offline tools), and the failure shows
 * the row to paste; every flag the configuration table names must exist, so
 * neither can drift.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { configurationRows, toolCommandRows, toolOptionRows } from '../../lib/cli/args/docs-tables.js';
import { COMMANDS } from '../../lib/cli/args/commands.js';

const CONFIGURATION = 'docs/configuration.md';
const OPERATIONS = 'docs/operations.md';
const configuration = readFileSync(CONFIGURATION, 'utf8');
const linesOf = (text: string): Set<string> => new Set(text.split('\n'));

describe('option tables of the docs kept in sync with the CLI option tables', () => {
  it(`holds every start option row verbatim in ${CONFIGURATION}`, () => {
    const lines = linesOf(configuration);
    const missing = configurationRows().filter((r) => !lines.has(r));
    expect(missing, `rows to put in ${CONFIGURATION}'s start options table:\n${missing.join('\n')}`).to.deep.equal([]);
  });

  it(`holds every offline tool and tool option row verbatim in ${OPERATIONS}`, () => {
    const lines = linesOf(readFileSync(OPERATIONS, 'utf8'));
    const missing = [...toolCommandRows(), ...toolOptionRows()].filter((r) => !lines.has(r));
    expect(missing, `rows to put in ${OPERATIONS}'s offline tools tables:\n${missing.join('\n')}`).to.deep.equal([]);
  });

  it('names no flag in the start options table that eddydb start does not take', () => {
    const start = configuration.indexOf('| flag | environment | default | meaning |');
    expect(start, `${CONFIGURATION} has no start options table`).to.be.greaterThan(-1);
    const table = configuration.slice(start, configuration.indexOf('\n\n', start)).split('\n').slice(2);
    const flags = new Set(COMMANDS.start.options.filter((o) => o.isFlag).map((o) => `--${o.name}`));
    const named = table.map((r) => /^\| `(--[a-z-]+)`/.exec(r)?.[1]).filter((f): f is string => f !== undefined);
    expect(named.length).to.be.greaterThan(10);
    expect(named.filter((f) => !flags.has(f))).to.deep.equal([]);
  });
});
