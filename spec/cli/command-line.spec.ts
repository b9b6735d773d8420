/**
 * The command line read through util.parseArgs with per-command
 * option tables: help recognised everywhere, unknown commands and options
 * refused with the closest known spelling, values checked in flags and in
 * the environment alike. Pure: parseCommandLine and its tables, in process.
 */
import { expect } from 'chai';
import { parseCommandLine } from '../../lib/cli/args/parse-command-line.js';
import { COMMANDS, DURABILITY_CHOICES, LOG_LEVEL_CHOICES } from '../../lib/cli/args/commands.js';
import { closest, editDistance } from '../../lib/cli/args/closest.js';
import { commandHelp, generalHelp } from '../../lib/cli/args/help.js';
import { COMMAND_NAMES } from '../../lib/cli/args/option-spec.js';
import { DURABILITY_MODES } from '../../lib/engine/index.js';
import { LOG_LEVELS } from '../../lib/http/index.js';
import { startConfig } from '../../lib/cli/config.js';

/** The one-line message parseCommandLine throws for `argv`, or '' when it parses. */
function mistake(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    parseCommandLine(argv, env);
    return '';
  } catch (err) {
    expect((err as Error).name).to.equal('UsageError');
    return (err as Error).message;
  }
}

describe('the command line', () => {
  it('asks for help on every form of --help, before checking values', () => {
    for (const argv of [
      ['--help'],
      ['-h'],
      ['start', '--help'],
      ['export', '-h'],
      ['--port', 'abc', '--help'],
      ['import', '--help'],
    ]) {
      expect(parseCommandLine(argv, {}).wantsHelp, argv.join(' ')).to.equal(true);
    }
    expect(parseCommandLine(['--help'], {}).isImplicit).to.equal(true);
    const help = parseCommandLine(['help', 'export'], {});
    expect(help).to.include({ command: 'help', positional: 'export', wantsHelp: false });
  });

  it('runs start when no command word is given', () => {
    expect(parseCommandLine([], {})).to.include({ command: 'start', isImplicit: true });
    expect(parseCommandLine(['--port', '9000'], {}).values.int('port')).to.equal(9000);
  });

  it('refuses an unknown option with the closest known one of that command', () => {
    expect(mistake(['--prot', '9000'])).to.equal("unknown option '--prot'; did you mean '--port'?");
    expect(mistake(['start', '--data', 'x'])).to.equal("unknown option '--data'; did you mean '--data-dir'?");
    expect(mistake(['export', '--colection', 'x'])).to.equal(
      "unknown option '--colection'; did you mean '--collection'?",
    );
    expect(mistake(['verify', '--zzz'])).to.equal("unknown option '--zzz'; run 'eddydb verify --help' for the options");
    expect(mistake(['export', '--create'])).to.equal(
      "unknown option '--create'; run 'eddydb export --help' for the options",
    );
    expect(mistake(['-x'])).to.equal("unknown option '-x'; run 'eddydb start --help' for the options");
  });

  it('refuses an unknown command with the closest known one', () => {
    expect(mistake(['strat'])).to.equal("unknown command 'strat'; did you mean 'start'?");
    expect(mistake(['exprot'])).to.equal("unknown command 'exprot'; did you mean 'export'?");
    expect(mistake(['frobnicate'])).to.equal("unknown command 'frobnicate'; run 'eddydb help' for the commands");
  });

  it('refuses missing, stray and bad values in one line naming the flag', () => {
    expect(mistake(['--port'])).to.equal("option '--port' needs a value");
    expect(mistake(['--port', '--quiet'])).to.match(
      /^option '--port' needs a value; to pass one starting with '-', write --port=--quiet$/,
    );
    expect(mistake(['--quiet=yes'])).to.equal("option '--quiet' takes no value (got 'yes')");
    expect(mistake(['--port', 'abc'])).to.equal("invalid value for --port: 'abc' (a whole number from 0 to 65535)");
    expect(mistake(['--port', '70000'])).to.equal("invalid value for --port: '70000' (a whole number from 0 to 65535)");
    expect(mistake(['--port=-1'])).to.equal("invalid value for --port: '-1' (a whole number from 0 to 65535)");
    expect(mistake(['--durability', 'fast'])).to.equal(
      "invalid value for --durability: 'fast' (one of always, batch, none, replicated)",
    );
    expect(mistake(['--durability', 'alwyas'])).to.equal(
      "invalid value for --durability: 'alwyas' (one of always, batch, none, replicated; did you mean 'always'?)",
    );
    expect(mistake(['import', '--collection', 'c', '--format', 'csv'])).to.equal(
      "invalid value for --format: 'csv' (one of ndjson, json)",
    );
    expect(mistake(['snapshot', 'extra'])).to.equal("unexpected argument 'extra'");
    expect(mistake(['verify', 'a.backup', 'extra'])).to.equal("unexpected argument 'extra'");
    expect(mistake(['backup', '--out', 'db.backup'])).to.equal('backup needs --key KEY');
    expect(mistake(['backup', '--out', 'db.backup'], { EDDYDB_ADMIN_KEY: 'k' })).to.equal('');
    expect(mistake(['--data-dir', 'd', 'verify'])).to.equal(
      "unexpected argument 'verify'; the command goes first: 'eddydb verify ...'",
    );
  });

  it('checks environment variables as strictly as flags, and lets a flag win over its variable', () => {
    expect(mistake([], { PORT: 'eighty' })).to.equal(
      "invalid value for PORT: 'eighty' (a whole number from 0 to 65535)",
    );
    expect(mistake([], { EDDYDB_QUIET: 'maybe' })).to.equal("invalid value for EDDYDB_QUIET: 'maybe' (1 or 0)");
    expect(mistake(['--port', '81'], { PORT: 'eighty' })).to.equal('');
    expect(parseCommandLine(['--port', '81'], { PORT: '80' }).values.int('port')).to.equal(81);
    expect(parseCommandLine([], { PORT: '' }).values.int('port')).to.equal(undefined);
  });

  it('requires the options a command cannot run without', () => {
    expect(mistake(['export'])).to.equal('export needs --collection NAME');
    expect(mistake(['import', '--in', 'x'])).to.equal('import needs --collection NAME');
  });

  it("offers exactly the engine's durability modes", () => {
    expect([...DURABILITY_CHOICES]).to.deep.equal([...DURABILITY_MODES]);
  });

  it("offers exactly the server's log levels, and silent", () => {
    expect([...LOG_LEVEL_CHOICES]).to.deep.equal([...LOG_LEVELS, 'silent']);
  });

  it('maps the log options onto ServerConfig', () => {
    const config = startConfig(['--log-level', 'debug', '--access-log', '--log-format', 'text'], {});
    expect(config).to.include({ logLevel: 'debug', accessLog: true, logFormat: 'text' });
    expect(startConfig([], { EDDYDB_LOG_LEVEL: 'warn', EDDYDB_ACCESS_LOG: '1' })).to.include({
      logLevel: 'warn',
      accessLog: true,
    });
    expect(mistake(['--log-level', 'loud'])).to.match(/log-level/);
  });

  it('renders help from the tables: every command in the overview, every option with its variable and default', () => {
    const overview = generalHelp();
    for (const name of COMMAND_NAMES) expect(overview).to.include(`  ${name} `);
    const start = commandHelp(COMMANDS.start);
    for (const o of COMMANDS.start.options) {
      expect(start).to.include(o.isFlag ? `--${o.name}` : o.env!);
      if (o.env) expect(start).to.include(o.env);
    }
    expect(start).to.include('env PORT; default 8080');
    for (const line of start.split('\n')) expect(line.length, line).to.be.at.most(100);
  });

  it('suggests by edit distance, counting a swap of neighbours as one edit', () => {
    expect(editDistance('prot', 'port')).to.equal(1);
    expect(editDistance('kitten', 'sitting')).to.equal(3);
    expect(closest('prot', ['host', 'port'])).to.equal('port');
    expect(closest('zzzz', ['port', 'host'])).to.equal(undefined);
    expect(closest('data', ['data-dir', 'durability'])).to.equal('data-dir');
  });
});
