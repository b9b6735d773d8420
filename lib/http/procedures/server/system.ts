/** Health, token exchange, run-time config and on-demand snapshots. */
import { InvalidInput, Unauthorized } from '../../../errors.js';
import { maskSecret, parseSettingsPatch, SECRET_SETTINGS, type StorageStatus } from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { bodyObject } from '../input.js';
import type { Context } from '../context.js';
import { providerChecks } from '../chat/providers.js';

/**
 * The settings as GET /api/config shows them: each provider key masked (`****` + last four), with `<key>_set`.
 * `durable_operations` is false when writes are not kept on disk (durability `none`, or a memory-only server).
 */
export function publicConfig(ctx: Context): Record<string, unknown> {
  const settings = ctx.config.settings();
  const durable = ctx.health.durability !== 'none' && ctx.health.durability !== 'memory';
  const out: Record<string, unknown> = { ...settings, durable_operations: durable };
  for (const key of SECRET_SETTINGS) {
    out[key] = maskSecret(settings[key]);
    out[`${key}_set`] = settings[key] !== null;
  }
  return out;
}

/** What startup recovery used and dropped (tail frames, salvaged damage), as the health `recovery` member. */
function recoveryView(ctx: Context): Record<string, unknown> {
  const recovery = ctx.health.recovery;
  return {
    snapshot: recovery.snapshot,
    replayed_batches: recovery.replayedBatches,
    dropped_frames: recovery.droppedFrames,
    dropped_bytes: recovery.droppedBytes,
    warnings: recovery.warnings,
    salvaged: recovery.salvaged,
  };
}

/**
 * Health. Anyone gets `{status, integrity_ok}` (the Rust client sends no
 * token; clients treat any non-2xx as unreachable, so it is 200 even when
 * degraded). An admin also gets the details: read-only cause, disk state
 * (`storage.durability` is `memory` for a memory-only server), what recovery
 * dropped, search index builds. They name files and
 * collections, which are not for anonymous callers.
 */
export const healthGet = defineProcedure({
  name: 'health.get',
  kind: 'query',
  access: 'public',
  optionalCaller: true,
  input: () => undefined,
  handler: (_i, ctx) => {
    const readOnly = ctx.storage.readOnly;
    const status = { status: readOnly ? 'degraded' : 'ok', integrity_ok: !readOnly };
    if (!ctx.principal?.admin) return status;
    const body: Record<string, unknown> = {
      ...status,
      integrity: { healthy: !readOnly, manifest_load_failed: [] },
      read_only: readOnly,
      version: ctx.version,
      uptime_secs: Math.floor((Date.now() - ctx.startedAt) / 1000),
    };
    const cause = ctx.storage.cause?.message;
    if (readOnly) body.reason = cause ? `storage failure: ${cause}` : 'storage failure';
    body.storage = {
      ...storageHealth(ctx.storage.status()),
      durability: ctx.health.durability,
      lock: ctx.health.lockMechanism,
    };
    body.recovery = recoveryView(ctx);
    // Search indexes building in the background (searches scan exactly meanwhile) and their progress.
    body.indexes = ctx.health.search.status();
    return body;
  },
});

/** The `storage` member of the health body: read-only state, its cause and the repair attempts. */
function storageHealth(status: StorageStatus): Record<string, unknown> {
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const out: Record<string, unknown> = { state: status.state, heal_attempts: status.healAttempts };
  const { cause } = status;
  if (cause) {
    const { code, message, operation, file } = cause;
    out.cause = { code, message, operation, file, at: iso(status.since) };
  }
  if (status.since !== undefined) out.since = iso(status.since);
  if (status.lastAttemptAt !== undefined) out.last_attempt_at = iso(status.lastAttemptAt);
  if (status.lastAttemptError) out.last_attempt_error = { ...status.lastAttemptError };
  return out;
}

export const authToken = defineProcedure({
  name: 'auth.token',
  kind: 'query',
  access: 'public',
  input: (raw) => {
    const body = bodyObject(raw);
    if (!('api_key' in body)) throw new InvalidInput('Body must be {api_key: string}');
    return body.api_key;
  },
  // Checked before the key, so a blocked address learns nothing, not even from a right guess (auth-failures.ts).
  handler: async (apiKey, ctx) => {
    const address = ctx.clientAddress ?? 'unknown';
    ctx.authFailures.check(address, ctx.clock.now());
    try {
      return { token: (await ctx.tokens.issue(apiKey)).token };
    } catch (err) {
      if (err instanceof Unauthorized) ctx.authFailures.fail(address, ctx.clock.now());
      throw err;
    }
  },
});

export const configGet = defineProcedure({
  name: 'config.get',
  kind: 'query',
  access: 'user',
  input: () => undefined,
  handler: (_i, ctx) => publicConfig(ctx),
});

export const configUpdate = defineProcedure({
  name: 'config.update',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => parseSettingsPatch(bodyObject(raw)),
  // A changed provider key or URL is probed once saved; its status entry is returned as `provider_checks`.
  handler: async (patch, ctx) => {
    await ctx.config.updateSettings(patch);
    const checks = await providerChecks(ctx, Object.keys(patch));
    return {
      status: 'updated',
      config: publicConfig(ctx),
      ...publicConfig(ctx),
      ...(checks ? { provider_checks: checks } : {}),
    };
  },
});

export const adminSnapshot = defineProcedure({
  name: 'admin.snapshot',
  kind: 'mutation',
  access: 'admin',
  input: () => undefined,
  handler: async (_i, ctx) => {
    const snapshot = await ctx.snapshots.snapshot();
    return { status: 'ok', snapshot: snapshot.name, seq: snapshot.seq, bytes: snapshot.bytes };
  },
});
