/**
 * The package's native addons, which `npm install` builds (binding.gyp,
 * node-gyp) into build/Release: found from the package root whether this
 * runs from lib/ (tsx) or dist/lib/ (built), and loaded, or the reason they
 * are not there (no compiler at install, another C library, a packed copy
 * without the build). It lives here, in the lowest layer that loads an
 * addon (the HNSW builds); the engine's flock and the HTTP codec load
 * theirs through it. Each user says what running without its addon costs.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The package root seen from lib/vector/native (tsx) and from dist/lib/vector/native (built). */
const PACKAGE_ROOTS = [path.resolve(HERE, '..', '..', '..'), path.resolve(HERE, '..', '..', '..', '..')];

/** The path of build/Release/`name` under a package root, if it was built; `roots`: where a root may be. */
export function builtAddonFile(name: string, roots: readonly string[] = PACKAGE_ROOTS): string | undefined {
  return roots.map((r) => path.join(r, 'build', 'Release', name)).find((p) => existsSync(p));
}

/**
 * The addon `name` (e.g. `eddydb_codec.node`), or why not: `refuse(addon)`
 * says what is wrong with an addon that loads (a function missing: another
 * version's build, or a platform without it), or nothing.
 */
export function loadBuiltAddon<T>(
  name: string,
  refuse: (addon: Record<string, unknown>) => string | undefined,
  roots: readonly string[] = PACKAGE_ROOTS,
): T | { unavailable: string } {
  const file = builtAddonFile(name, roots);
  const where = path.join('build', 'Release', name);
  if (file === undefined) return { unavailable: `${where} was not built (npm install builds it with node-gyp)` };
  try {
    const addon = createRequire(import.meta.url)(file) as Record<string, unknown>;
    const refused = refuse(addon);
    return refused === undefined ? (addon as T) : { unavailable: `${file} ${refused}` };
  } catch (err) {
    return { unavailable: `${file} did not load: ${(err as Error).message}` };
  }
}
