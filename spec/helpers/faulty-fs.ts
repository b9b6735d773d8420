/**
 * A fault-injecting StorageFs: wraps the real one and fails appends or fsyncs
 * on demand, the way a full or dying disk would.
 */
import { nodeFs, type StorageFile, type StorageFs } from '../../lib/engine/index.js';

export class FaultyFs implements StorageFs {
  failWrites = false;
  failSyncs = false;
  writes = 0;
  syncs = 0;

  private wrap(f: StorageFile): StorageFile {
    return {
      write: async (d) => { this.writes++; if (this.failWrites) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }); return f.write(d); },
      sync: async () => { this.syncs++; if (this.failSyncs) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }); return f.sync(); },
      truncate: (n) => f.truncate(n),
      close: () => f.close(),
    };
  }

  openAppend = async (p: string) => this.wrap(await nodeFs.openAppend(p));
  openWrite = async (p: string) => this.wrap(await nodeFs.openWrite(p));
  readFile = (p: string) => nodeFs.readFile(p);
  readdir = (d: string) => nodeFs.readdir(d);
  rename = (a: string, b: string) => nodeFs.rename(a, b);
  unlink = (p: string) => nodeFs.unlink(p);
  mkdir = (d: string) => nodeFs.mkdir(d);
  syncDir = (d: string) => nodeFs.syncDir(d);
  exists = (p: string) => nodeFs.exists(p);
  size = (p: string) => nodeFs.size(p);
}
