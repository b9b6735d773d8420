/**
 * KvQuery: the working records become the KV entries whose key matches
 * `pattern`, in key order, each `{key, value, expires_at?}` (expires_at an
 * RFC 3339 string, present when the entry has a TTL). `pattern` is an
 * unanchored regular expression on the linear-time engine (lib/engine/pattern):
 * `cache:product:.*`; absent, null or empty matches every key. A literal
 * pattern is compiled at save, so a bad one is a 400 then; one with
 * placeholders is compiled per call. `include_expired` (default false)
 * also lists entries whose TTL has passed but which the sweeper has not
 * removed yet.
 *
 * Like KvGet, refused in a transactional function.
 */
import { compilePattern, requirePattern, type Pattern } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { isConstant, type Template } from '../../templates/index.js';
import { step } from '../step.js';

/** Every key, a pattern compiled at save (a literal), or a template compiled per call. */
type KeyPattern = { readonly kind: 'all' } | { readonly kind: 'fixed'; readonly pattern: Pattern } | { readonly kind: 'template'; readonly t: Template };

interface KvQueryConfig {
  readonly pattern: KeyPattern;
  readonly includeExpired: boolean;
}

const ALL: KeyPattern = Object.freeze({ kind: 'all' });

const isNoPattern = (v: unknown) => v === undefined || v === null || v === '';

export const kvQuery = step<KvQueryConfig>({
  type: 'KvQuery',
  access: 'read',
  transactional: false,
  compile: (m) => ({ pattern: compileKeyPattern(m.optionalTemplate('pattern'), (message) => m.fail(message, 'pattern')), includeExpired: m.optionalBoolean('include_expired') ?? false }),
  run: async (cfg, rows, x) => {
    const p = cfg.pattern;
    const pattern = p.kind === 'all' ? undefined : p.kind === 'fixed' ? p.pattern : runtimePattern(x.resolve(p.t, rows[0]));
    return (await x.kv.find(pattern, cfg.includeExpired)).map((e) => ({ ...e }));
  },
});

function compileKeyPattern(t: Template | undefined, fail: (message: string) => never): KeyPattern {
  if (t === undefined) return ALL;
  if (!isConstant(t)) return { kind: 'template', t };
  if (isNoPattern(t.v)) return ALL;
  if (typeof t.v !== 'string') fail('must be a string (a regular expression)');
  const compiled = compilePattern(t.v);
  if (!compiled.ok) fail(compiled.problem);
  return { kind: 'fixed', pattern: compiled.pattern };
}

function runtimePattern(v: unknown): Pattern | undefined {
  if (isNoPattern(v)) return undefined;
  if (typeof v !== 'string') throw new InvalidInput("KvQuery 'pattern' must resolve to a string (a regular expression)");
  return requirePattern(v, "KvQuery 'pattern'");
}
