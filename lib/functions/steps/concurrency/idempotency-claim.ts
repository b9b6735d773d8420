/**
 * IdempotencyClaim: claims `key` once for `ttl_secs` seconds, atomically
 * (one check-and-set in the engine's single writer: of any number of
 * concurrent calls exactly one wins).
 *
 * - The first call stores null under `key` (the claim, expiring after
 *   `ttl_secs`) and writes `{claimed: true, key}` to `output_field`
 *   (default `claim`).
 * - Every later call while the key lives writes `{claimed: false, key,
 *   response}`. `response` is the value stored under the key: null while
 *   the claimer has stored nothing, or what it stored there with KvSet (the
 *   response to replay, e.g. `{type: KvSet, key: "{{idem_key}}", value:
 *   "{{order}}", ttl: 86400}`; give the KvSet a ttl too, or the key stops
 *   expiring).
 *
 * `key` and `ttl_secs` resolve against the first working record; the result
 * goes into every working record (one record holding only it when there are
 * none), so `If {FieldEquals claim.claimed true}` can branch on it.
 */
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { keyMember, MAX_SECONDS, resolveKey, resolveWholeNumber, wholeNumberMember, writeOutput } from '../kv/kv-members.js';

interface ClaimConfig {
  readonly key: Template;
  readonly ttlSecs: Template;
  readonly output: readonly string[];
}

export const idempotencyClaim = step<ClaimConfig>({
  type: 'IdempotencyClaim',
  access: 'outside',
  compile: (m) => ({
    key: keyMember(m),
    ttlSecs: wholeNumberMember(m, 'ttl_secs', 1, MAX_SECONDS),
    output: m.optionalFieldPath('output_field') ?? ['claim'],
  }),
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const key = resolveKey(x, cfg.key, row);
    const ttl = resolveWholeNumber(x, cfg.ttlSecs, row, 'ttl_secs', 1, MAX_SECONDS);
    const claim = await x.kv.setIfAbsent(key, null, ttl);
    return writeOutput(rows, cfg.output, claim.created ? { claimed: true, key } : { claimed: false, key, response: claim.value });
  },
});
