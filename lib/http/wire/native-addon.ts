/**
 * The HTTP layer's optional native addons (built by `npm install` into
 * build/Release, found and loaded by lib/vector's built-addon.ts). Each
 * user says what running without its addon costs.
 */
import { loadBuiltAddon } from '../../vector/index.js';

/**
 * The addon `name` (e.g. `eddydb_codec.node`) with the functions `methods`,
 * or why not; `roots` are where a package root may be (the default: this
 * package's).
 */
export function loadAddon<T>(
  name: string,
  methods: readonly string[],
  roots?: readonly string[],
): T | { unavailable: string } {
  const missing = (addon: Record<string, unknown>) =>
    methods.some((m) => typeof addon[m] !== 'function') ? "is not this version's addon" : undefined;
  return loadBuiltAddon<T>(name, missing, roots);
}
