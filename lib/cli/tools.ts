/**
 * Offline tools on a data directory (the server must not be running):
 * `eddydb snapshot` writes a snapshot and drops redundant segments.
 */
import path from 'node:path';
import { Database } from '../engine/index.js';
import type { ParsedArgs } from './config.js';

export async function runTool(args: ParsedArgs): Promise<number> {
  const dataDir = path.resolve(typeof args.flags['data-dir'] === 'string' ? args.flags['data-dir'] : process.env.EDDYDB_DATA_DIR ?? 'data');
  switch (args.command) {
    case 'snapshot': {
      const db = await Database.open({ dataDir, log: (m) => console.log(m) });
      const s = await db.snapshot();
      await db.close();
      console.log(`snapshot ${s.name} written (seq ${s.seq}, ${s.bytes} bytes)`);
      return 0;
    }
    case 'help':
    default:
      console.log('usage: eddydb [start|snapshot|help] [--port N] [--data-dir DIR] [--durability always|batch|none]');
      return args.command === 'help' ? 0 : 2;
  }
}
