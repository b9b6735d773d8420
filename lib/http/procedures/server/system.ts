/** Health, token exchange, run-time config and on-demand snapshots. */
import { InvalidInput, Starting, Unauthorized } from '../../../errors.js';
import {
  DEFAULT_SETTINGS,
  DURABILITY_MODES,
  ISOLATION_LEVELS,
  maskSecret,
  parseSettingsPatch,
  SECRET_SETTINGS,
  type StorageStatus,
} from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { bodyObject } from '../input.js';
import type { Context } from '../context.js';
import { providerChecks } from '../chat/providers.js';
import { Anything, Type, type TSchema } from '../shapes.js';

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

/**
 * The settings as JSON Schema, from their defaults: the answer of GET /api/config (`answer`), the body of PUT
 * (`patch`: every member optional, unknown ones refused) and PUT's answer (`updated`).
 */
function settingsSchema(shape: 'answer' | 'patch' | 'updated') {
  const members: Record<string, TSchema> = {};
  for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
    if (key === 'default_isolation_level') members[key] = Type.Enum([...ISOLATION_LEVELS]);
    else if (key === 'durability') members[key] = Type.Enum([...DURABILITY_MODES]);
    else if (Array.isArray(value)) members[key] = Type.Array(Type.String());
    else if (value === null) members[key] = Type.Union([Type.String(), Type.Null()]);
    else if (typeof value === 'number') members[key] = Type.Integer();
    else members[key] = typeof value === 'boolean' ? Type.Boolean() : Type.String();
  }
  if (shape === 'patch') {
    const optional = Object.fromEntries(Object.entries(members).map(([key, member]) => [key, Type.Optional(member)]));
    const durable = Type.Optional(Type.Boolean({ description: 'false: durability none; true: always.' }));
    return Type.Object({ ...optional, durable_operations: durable }, { additionalProperties: false });
  }
  const shown: Record<string, TSchema> = {
    ...members,
    durable_operations: Type.Boolean({ description: 'Whether writes reach the disk.' }),
  };
  for (const key of SECRET_SETTINGS) shown[`${key}_set`] = Type.Boolean();
  const config = Type.Object(shown, { title: 'Config' });
  if (shape === 'answer') return config;
  return Type.Object({
    status: Type.Literal('updated'),
    config,
    ...shown,
    provider_checks: Type.Optional(Type.Object({}, { description: 'Each changed provider: its status entry.' })),
  });
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
  schema: {
    summary: 'Whether the server is up and writable',
    description: 'Always 200: `status` is `degraded` while storage failed and writes are refused.',
    response: Type.Object(
      {
        status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
        integrity_ok: Type.Boolean(),
        integrity: Type.Optional(Type.Object({ healthy: Type.Boolean(), manifest_load_failed: Type.Array(Anything) })),
        read_only: Type.Optional(Type.Boolean()),
        reason: Type.Optional(Type.String({ description: 'Why writes are refused.' })),
        version: Type.Optional(Type.String()),
        uptime_secs: Type.Optional(Type.Integer()),
        storage: Type.Optional(
          Type.Object(
            { state: Type.String(), heal_attempts: Type.Integer(), durability: Type.String(), lock: Type.String() },
            { description: 'The log and data directory: read-only cause, repair attempts, durability, lock.' },
          ),
        ),
        recovery: Type.Optional(Type.Object({}, { description: 'What startup recovery replayed and dropped.' })),
        indexes: Type.Optional(Type.Array(Anything, { description: 'Search indexes building, with progress.' })),
        cluster: Type.Optional(
          Type.Object(
            {
              name: Type.String(),
              role: Type.String({ description: '`primary`, `replica` or `fenced`.' }),
              node_id: Type.String(),
              primary_url: Type.Union([Type.String(), Type.Null()]),
              applied_seq: Type.Integer(),
              lag: Type.Integer({ description: "Batches in the cluster's log not applied here yet." }),
              lease_ttl_ms: Type.Integer(),
            },
            { description: 'A cluster node (`--cluster`): its role, the primary and how far it has applied.' },
          ),
        ),
        lease_ttl_ms: Type.Optional(Type.Integer({ description: "A cluster node: the primary's lease." })),
      },
      { description: 'Anyone gets status and integrity_ok; an admin token also gets the rest.' },
    ),
  },
  handler: (_i, ctx) => {
    const readOnly = ctx.storage.readOnly;
    const status: Record<string, unknown> = { status: readOnly ? 'degraded' : 'ok', integrity_ok: !readOnly };
    if (ctx.cluster) {
      status.cluster = ctx.cluster.status();
      status.lease_ttl_ms = ctx.cluster.status().lease_ttl_ms;
    }
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
  schema: {
    summary: 'Exchange an API key for a token',
    description:
      'The token (an HS256 JWT) goes in `Authorization: Bearer <token>` until it expires (`token_ttl_secs`). ' +
      'Ten wrong keys from one address within a minute get 429 with Retry-After.',
    body: Type.Object({ api_key: Type.String() }),
    response: Type.Object({ token: Type.String() }),
  },
  input: (raw) => {
    const body = bodyObject(raw);
    if (!('api_key' in body)) throw new InvalidInput('Body must be {api_key: string}');
    return body.api_key;
  },
  // Checked before the key, so a blocked address learns nothing, not even from a right guess (auth-failures.ts).
  handler: async (apiKey, ctx) => {
    const address = ctx.clientAddress ?? 'unknown';
    ctx.authFailures.check(address, ctx.clock.now());
    // A server bound before its admin key is stored (a start, a cluster's new primary, a replica not caught up) cannot
    // judge a key yet: a refusal would be false, and would count toward the address's failures.
    if (!ctx.keys.hasAdmin()) throw new Starting('The server is starting: its API keys are not ready; retry', 1);
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
  schema: {
    summary: 'The run-time settings',
    description: 'Provider keys and the SMTP password are masked (`****` and the last four), with `<key>_set`.',
    response: settingsSchema('answer'),
  },
  handler: (_i, ctx) => publicConfig(ctx),
});

export const configUpdate = defineProcedure({
  name: 'config.update',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => parseSettingsPatch(bodyObject(raw)),
  schema: {
    summary: 'Change run-time settings',
    description: 'Only the members given change, durably; a changed provider key or URL is probed (`provider_checks`).',
    body: settingsSchema('patch'),
    response: settingsSchema('updated'),
  },
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
  schema: {
    summary: 'Write a snapshot now',
    description: 'Writes go on meanwhile; the log before the snapshot can then be dropped.',
    response: Type.Object({
      status: Type.Literal('ok'),
      snapshot: Type.String({ description: 'Its file name (`memory` for a memory-only server).' }),
      seq: Type.Integer({ description: 'The log sequence it holds everything up to.' }),
      bytes: Type.Integer(),
    }),
  },
  handler: async (_i, ctx) => {
    const snapshot = await ctx.snapshots.snapshot();
    return { status: 'ok', snapshot: snapshot.name, seq: snapshot.seq, bytes: snapshot.bytes };
  },
});
