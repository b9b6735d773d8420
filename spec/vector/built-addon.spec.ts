/**
 * The package's native addons, found under build/Release from the package
 * root and loaded, or the reason they are not (built-addon.ts). npm install
 * builds them on the machines the tests run on.
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { builtAddonFile, loadBuiltAddon } from '../../lib/vector/index.js';

const NOWHERE = [path.join(path.sep, 'nonexistent', 'eddydb-root')];

describe('vector/native/built-addon', () => {
  it('finds a built addon under the package root, and nothing under a root without it', () => {
    expect(builtAddonFile('eddydb_codec.node')).to.equal(path.resolve('build', 'Release', 'eddydb_codec.node'));
    expect(builtAddonFile('eddydb_codec.node', NOWHERE)).to.equal(undefined);
    expect(builtAddonFile('no_such_addon.node')).to.equal(undefined);
  });

  it('loads an addon its check accepts, and says why for one not built, refused or not loading', () => {
    const accept = (addon: Record<string, unknown>) =>
      typeof addon.msgpackAsJson === 'function' ? undefined : 'has no msgpackAsJson';
    const loaded = loadBuiltAddon<{ msgpackAsJson: unknown }>('eddydb_codec.node', accept);
    expect(loaded).to.have.property('msgpackAsJson').that.is.a('function');
    expect(loadBuiltAddon('eddydb_codec.node', accept, NOWHERE)).to.deep.equal({
      unavailable: `${path.join('build', 'Release', 'eddydb_codec.node')} was not built (npm install builds it with node-gyp)`,
    });
    expect(loadBuiltAddon('eddydb_codec.node', () => 'is not this version’s addon')).to.deep.equal({
      unavailable: `${path.resolve('build', 'Release', 'eddydb_codec.node')} is not this version’s addon`,
    });
    const root = tempDir('eddydb-addon-');
    try {
      mkdirSync(path.join(root, 'build', 'Release'), { recursive: true });
      writeFileSync(path.join(root, 'build', 'Release', 'broken.node'), 'not a shared object');
      const broken = loadBuiltAddon('broken.node', () => undefined, [root]);
      expect(broken)
        .to.have.property('unavailable')
        .that.matches(/broken\.node did not load: /);
    } finally {
      removeDir(root);
    }
  });
});
