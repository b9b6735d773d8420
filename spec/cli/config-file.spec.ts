/**
 * The config file (`--config FILE`, EDDYDB_CONFIG): options under their own
 * names, at the top level or in a section per command; flag > environment >
 * file > default; unknown keys and sections named with the closest known
 * one; a value of the wrong type named by key, file and line.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '../../lib/cli/args/commands.js';
import { parseCommandLine } from '../../lib/cli/args/parse-command-line.js';
import { startConfig } from '../../lib/cli/config.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

describe('config file', () => {
  let dir: string;
  let n = 0;
  /** Writes `text` to a new file in the test's directory; returns its path. */
  const file = (text: string): string => {
    const p = path.join(dir, `eddydb-${++n}.toml`);
    writeFileSync(p, text);
    return p;
  };
  /** The UsageError message parsing `argv` with `env` throws. */
  const refusal = (argv: string[], env: NodeJS.ProcessEnv = {}): string => {
    try {
      parseCommandLine(argv, env);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error(`no error for ${argv.join(' ')}`);
  };

  before(() => (dir = tempDir('eddydb-config-file-')));
  after(() => removeDir(dir));

  describe('precedence', () => {
    const toml = 'port = 9001\ndurability = "batch"\nrate-limit = 50\ntoken-ttl = 600\n';

    it('takes a value from the file when neither a flag nor the environment gives it', () => {
      const f = file(toml);
      const { values } = parseCommandLine(['start', '--config', f], {});
      expect(values.int('port')).to.equal(9001);
      expect(values.sourceOf('port')).to.deep.equal({ kind: 'file', where: `${f} line 1` });
      expect(startConfig(['start', '--config', f], {}).settings).to.include({
        durability: 'batch',
        rate_limit_requests: 50,
        token_ttl_secs: 600,
      });
    });

    it('lets the environment win over the file, and a flag over both', () => {
      const f = file(toml);
      const env = { PORT: '9002', EDDYDB_DURABILITY: 'none' };
      const { values } = parseCommandLine(['start', '--config', f, '--durability', 'always'], env);
      expect(values.int('port')).to.equal(9002);
      expect(values.sourceOf('port')).to.deep.equal({ kind: 'env', where: 'PORT' });
      expect(values.text('durability')).to.equal('always');
      expect(values.sourceOf('durability')).to.deep.equal({ kind: 'flag', where: '--durability' });
      expect(values.int('rate-limit')).to.equal(50);
    });

    it('leaves what nothing gives to the default', () => {
      const { values } = parseCommandLine(['start', '--config', file(toml)], {});
      expect(values.has('host')).to.equal(false);
      expect(values.sourceOf('host')).to.deep.equal({ kind: 'default' });
      expect(startConfig(['start', '--config', file(toml)], {}).host).to.equal('0.0.0.0');
    });

    it('is named by EDDYDB_CONFIG too, and --config wins over it', () => {
      const a = file('port = 9003\n');
      const b = file('port = 9004\n');
      expect(parseCommandLine(['start'], { EDDYDB_CONFIG: a }).values.int('port')).to.equal(9003);
      expect(parseCommandLine(['start', '--config', b], { EDDYDB_CONFIG: a }).values.int('port')).to.equal(9004);
      expect(parseCommandLine(['start'], { EDDYDB_CONFIG: '' }).values.has('port')).to.equal(false);
    });

    it('reads environment-only settings such as the admin key, and switches as booleans', () => {
      const f = file('admin-key = "0123456789abcdef0123456789abcdef"\nmemory = true\naccess-log = false\n');
      const c = startConfig(['start', '--config', f], {});
      expect(c).to.include({ adminKey: '0123456789abcdef0123456789abcdef', memory: true, accessLog: false });
    });
  });

  describe('sections', () => {
    it('serves a top-level key to every command that takes it; a [command] section to that one, winning', () => {
      const f = file(
        [
          'data-dir = "/srv/shared"',
          'collection = "users"',
          'port = 9005',
          '[start]',
          'port = 9006',
          '[export]',
          'data-dir = "/srv/export"',
        ].join('\n'),
      );
      const start = parseCommandLine(['start', '--config', f], {}).values;
      expect(start.int('port')).to.equal(9006);
      expect(start.sourceOf('port')).to.deep.equal({ kind: 'file', where: `${f} line 5` });
      expect(start.text('data-dir')).to.equal('/srv/shared');
      const exporting = parseCommandLine(['export', '--config', f], {}).values;
      expect(exporting.text('data-dir')).to.equal('/srv/export');
      // The required --collection comes from the file as well.
      expect(exporting.text('collection')).to.equal('users');
      expect(parseCommandLine(['verify', '--config', f], {}).values.text('data-dir')).to.equal('/srv/shared');
    });

    it('makes the implicit start and eddydb config read the [start] section', () => {
      const f = file('[start]\nport = 9007\n');
      expect(parseCommandLine(['--config', f], {}).values.int('port')).to.equal(9007);
      expect(parseCommandLine(['config', '--config', f], {}).values.int('port')).to.equal(9007);
    });
  });

  describe('mistakes', () => {
    it('names an unknown key with its line and the closest known one', () => {
      const f = file('port = 9008\ndata_dir = "./data"\n');
      expect(refusal(['start', '--config', f])).to.equal(
        `unknown key 'data_dir' in ${f} line 2; did you mean 'data-dir'?`,
      );
      const g = file('[start]\nprot = 1\n');
      expect(refusal(['start', '--config', g])).to.equal(
        `unknown key 'prot' [start] in ${g} line 2; did you mean 'port'?`,
      );
      // An option of another command is unknown in this command's section, even when running another.
      const h = file('[start]\ncollection = "users"\n');
      expect(refusal(['verify', '--config', h])).to.match(/^unknown key 'collection' \[start\] in .* line 2; the keys/);
    });

    it('names an unknown section with the closest command', () => {
      const f = file('[strat]\nport = 1\n');
      expect(refusal(['start', '--config', f])).to.equal(`unknown key 'strat' in ${f} line 1; did you mean 'start'?`);
      expect(refusal(['start', '--config', file('start = 1\n')])).to.match(
        /'start' in .* must be a section, \[start\]/,
      );
    });

    it('names the key, file and line of a value of the wrong type, and what it must be', () => {
      const f = file('host = "127.0.0.1"\nport = "8080"\n');
      expect(refusal(['start', '--config', f])).to.equal(
        `invalid value for 'port' in ${f} line 2: the string "8080" (a whole number from 0 to 65535, without quotes)`,
      );
      const g = file('[start]\nmemory = "yes"\n');
      expect(refusal(['start', '--config', g])).to.equal(
        `invalid value for 'memory' in ${g} line 2: the string "yes" (true or false)`,
      );
      expect(refusal(['start', '--config', file('port = 70000\n')])).to.match(/the integer 70000 \(a whole number/);
      expect(refusal(['start', '--config', file('port = 80.5\n')])).to.match(/the float 80.5 \(a whole number/);
      expect(refusal(['start', '--config', file('durability = "bach"\n')])).to.match(
        /invalid value for 'durability' in .* line 1: 'bach' \(one of always, batch, none, replicated; did you mean 'batch'\?\)/,
      );
      expect(refusal(['start', '--config', file('durability = 1\n')])).to.match(/the integer 1 \(one of always, batch/);
    });

    it('never echoes a secret in an error', () => {
      const message = refusal(['start', '--config', file('admin-key = 123456789012345678901234\n')]);
      expect(message).to.equal(
        `invalid value for 'admin-key' in ${path.join(dir, `eddydb-${n}.toml`)} line 1: an integer (a string, in quotes)`,
      );
      const peers = refusal(['start', '--config', file('ripple-peers = ["ftp://b|topsecret"]\n')]);
      expect(peers).to.include('ripple peer url');
      expect(peers).to.not.include('topsecret');
    });

    it('gives the line and column of a TOML syntax error', () => {
      const f = file('port = 1\nhost = = "x"\n');
      expect(refusal(['start', '--config', f])).to.equal(`${f} line 2, column 8 is not valid TOML: invalid value`);
      expect(refusal(['start', '--config', file('port = 1\nport = 2\n')])).to.match(/line 2, column 1 is not valid/);
    });

    it('says which option named a file it cannot read', () => {
      const missing = path.join(dir, 'missing.toml');
      expect(refusal(['start', '--config', missing])).to.equal(
        `cannot read the config file ${missing} (--config): no such file`,
      );
      expect(refusal(['start'], { EDDYDB_CONFIG: dir })).to.equal(
        `cannot read the config file ${dir} (EDDYDB_CONFIG): it is a directory`,
      );
    });
  });

  it('accepts the example file of docs/configuration.md, for start and for a tool', () => {
    const docs = readFileSync('docs/configuration.md', 'utf8');
    const section = docs.slice(docs.indexOf('## Config file'));
    const example = /```toml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example, 'a toml block in the Config file section').to.be.a('string');
    const f = file(example!);
    const c = startConfig(['start', '--config', f], {});
    expect(c).to.include({ port: 8443, dataDir: '/var/lib/eddydb', trustProxy: true, lockWaitMs: 30_000 });
    expect(c.settings).to.include({ durability: 'always', rate_limit_requests: 1000 });
    const imports = parseCommandLine(['import', '--config', f, '--collection', 'users'], {}).values;
    expect(imports.isOn('create')).to.equal(true);
    expect(imports.text('data-dir')).to.equal('/var/lib/eddydb');
  });

  it('marks every option that holds a key or password as a secret', () => {
    const looksSecret = /^(key|.*api-key|admin-key|.*password|.*secret|.*token)$/;
    const unmarked = Object.values(COMMANDS)
      .flatMap((c) => c.options.map((o) => ({ command: c.name, option: o })))
      .filter(({ option }) => looksSecret.test(option.name) && option.value.kind === 'text' && !option.isSecret)
      .map(({ command, option }) => `${command} ${option.name}`);
    expect(unmarked).to.deep.equal([]);
  });
});
