/**
 * Every command of `eddydb` and the options it takes: the single source of
 * the parser, of `--help` and of the option tables in docs/configuration.md
 * and docs/operations.md (spec/cli/docs-sync.spec.ts keeps them in step).
 * The start command's options are in start-options.ts. Add an option there
 * or here, read it in config.ts or the tool, and paste its row.
 */
import type { CommandName, CommandSpec, OptionSpec } from './option-spec.js';
import { CONFIG, DATA_DIR, HELP, LOCK_WAIT, START_OPTIONS, SWITCH, TEXT } from './start-options.js';

export { DURABILITY_CHOICES, LOG_LEVEL_CHOICES } from './start-options.js';

const CREATE: OptionSpec = {
  name: 'create',
  isFlag: true,
  value: SWITCH,
  defaultText: 'off',
  help: 'make the data directory when it does not exist (import: also the collection)',
};
const COLLECTION: OptionSpec = {
  name: 'collection',
  isFlag: true,
  value: TEXT,
  placeholder: 'NAME',
  help: 'the collection',
  isRequired: true,
};

/** The commands, in the order help lists them. */
export const COMMANDS: Readonly<Record<CommandName, CommandSpec>> = {
  start: {
    name: 'start',
    summary: 'run the server (the default command)',
    usage: 'start [options]',
    description:
      'Runs the HTTP and WebSocket server until SIGINT or SIGTERM, which shut it down cleanly\n(in-flight writes ' +
      'finish, a final snapshot is written). Flags win over environment\nvariables, and both over a config file.',
    options: START_OPTIONS,
  },
  snapshot: {
    name: 'snapshot',
    summary: "write a snapshot now, drop what the two newest generations don't need",
    usage: 'snapshot [--data-dir DIR]',
    description:
      "Writes a snapshot of a stopped server's data directory and deletes segments and\nsnapshots the two newest " +
      'generations do not need.',
    options: [CONFIG, DATA_DIR, LOCK_WAIT, CREATE, HELP],
  },
  compact: {
    name: 'compact',
    summary: 'snapshot and keep only the newest snapshot and the log after it',
    usage: 'compact [--data-dir DIR]',
    description: 'Like snapshot, but keeps a single generation: the smallest data directory.',
    options: [CONFIG, DATA_DIR, LOCK_WAIT, CREATE, HELP],
  },
  verify: {
    name: 'verify',
    summary: 'check every file, count records, say whether a start would succeed',
    usage: 'verify [--data-dir DIR] | verify FILE',
    description:
      'Checks every segment and snapshot, lists the generations, counts the records a start\nwould load per ' +
      'collection, and says whether a normal start would succeed (exit 1 if not).\nWith FILE, checks a backup ' +
      'file instead: every frame, its seq, the records it holds\n(exit 1 when it is damaged or incomplete). ' +
      'Changes nothing.',
    options: [CONFIG, DATA_DIR, LOCK_WAIT, HELP],
    positional: 'file',
  },
  export: {
    name: 'export',
    summary: 'write a collection as NDJSON of typed records',
    usage: 'export --collection NAME [--out FILE]',
    description:
      'Writes every record of a collection, one JSON object per line, with typed ' +
      'values\n(`{"type":"Decimal","value":"1.50"}`), to stdout or --out. A missing collection is an error.',
    options: [
      CONFIG,
      DATA_DIR,
      LOCK_WAIT,
      COLLECTION,
      {
        name: 'out',
        isFlag: true,
        value: TEXT,
        placeholder: 'FILE',
        defaultText: 'stdout',
        help: 'write here instead (replaced if it exists)',
      },
      HELP,
    ],
  },
  import: {
    name: 'import',
    summary: 'read records (NDJSON or a JSON array) into a collection',
    usage: 'import --collection NAME [--in FILE] [--format ndjson|json]',
    description:
      'Inserts records in batches of 1,000 and reports each line that fails. The collection\nmust exist unless ' +
      '--create is given. Exit 1 when any record failed.',
    options: [
      CONFIG,
      DATA_DIR,
      LOCK_WAIT,
      COLLECTION,
      {
        name: 'in',
        isFlag: true,
        value: TEXT,
        placeholder: 'FILE',
        defaultText: 'stdin',
        help: 'read from here instead',
      },
      {
        name: 'format',
        isFlag: true,
        value: { kind: 'choice', values: ['ndjson', 'json'] },
        placeholder: 'FORMAT',
        defaultText: '`ndjson`',
        help: '`ndjson` (one record per line) or `json` (one array of records, read whole into memory)',
      },
      CREATE,
      HELP,
    ],
  },
  backup: {
    name: 'backup',
    summary: 'save an online backup of a running server to a file',
    usage: 'backup --url URL --key KEY --out FILE',
    description:
      'Asks a running server for a backup (GET /api/admin/backup: the whole database at one\nseq, taken while ' +
      'writes go on), shows the bytes and seq as they come, checks the file\nand only then puts it at FILE. ' +
      'The file holds the secrets that sign tokens: keep it private.',
    options: [
      CONFIG,
      {
        name: 'url',
        isFlag: true,
        value: TEXT,
        env: 'EDDYDB_URL',
        placeholder: 'URL',
        defaultText: '`http://127.0.0.1:8080`',
        help: "the server's base URL",
      },
      {
        name: 'key',
        isFlag: true,
        isSecret: true,
        value: TEXT,
        env: 'EDDYDB_ADMIN_KEY',
        placeholder: 'KEY',
        help: 'an admin API key of that server (the variable keeps it out of the process list)',
        isRequired: true,
      },
      {
        name: 'out',
        isFlag: true,
        value: TEXT,
        placeholder: 'FILE',
        help: 'the backup file (written beside it, checked, then renamed; replaced if it exists)',
        isRequired: true,
      },
      HELP,
    ],
  },
  restore: {
    name: 'restore',
    summary: 'build a data directory from a backup file',
    usage: 'restore FILE --data-dir DIR',
    description:
      'Checks the backup FILE, then writes what a start needs (its snapshot and secrets) into\nDIR, which must ' +
      'be new or empty: a directory with anything in it is refused.\nStart the server on DIR afterwards.',
    options: [CONFIG, DATA_DIR, LOCK_WAIT, HELP],
    positional: 'file',
  },
  config: {
    name: 'config',
    summary: 'print the configuration start would run with, and where each value comes from',
    usage: 'config [start options]',
    description:
      'Prints every option of start as TOML: its value and where it comes from (flag,\nenvironment, config ' +
      'file, default), secrets redacted. Checks the values as start would,\nand starts nothing.',
    options: START_OPTIONS.filter((o) => o.name !== 'version'),
  },
  help: {
    name: 'help',
    summary: 'show help for eddydb or for one command',
    usage: 'help [command]',
    description: "Shows the commands, or one command's options.",
    options: [HELP],
    positional: 'command',
  },
};

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}
