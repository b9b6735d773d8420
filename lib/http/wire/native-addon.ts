/**
 * The optional native addons (binding.gyp, built by `npm install` into
 * build/Release): loaded from the package root, or the reason they are not
 * there (no compiler at install, another C library, a packed copy without
 * the build). Each user says what running without its addon costs.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The package root seen from lib/http/wire (tsx) and from dist/lib/http/wire (built). */
const ROOTS = [path.resolve(HERE, '..', '..', '..'), path.resolve(HERE, '..', '..', '..', '..')];

/**
 * The addon `name` (e.g. `eddydb_codec.node`) with the functions `methods`,
 * or why not; `roots` are where a package root may be (specs pass others).
 */
export function loadAddon<T>(
  name: string,
  methods: readonly string[],
  roots: readonly string[] = ROOTS,
): T | { unavailable: string } {
  const addon = path.join('build', 'Release', name);
  const file = roots.map((r) => path.join(r, addon)).find((p) => existsSync(p));
  if (file === undefined) return { unavailable: `${addon} was not built (npm install builds it with node-gyp)` };
  try {
    const loaded = createRequire(import.meta.url)(file) as Record<string, unknown>;
    if (methods.some((m) => typeof loaded[m] !== 'function'))
      return { unavailable: `${file} is not this version's addon` };
    return loaded as T;
  } catch (err) {
    return { unavailable: `${file} did not load: ${(err as Error).message}` };
  }
}
