/**
 * The filter builder: a tree of conditions and And / Or / Not groups edited with controls, kept in the URL as its
 * own compact JSON, and turned into the server's filter expression (docs/http-api.md, protocol.md 2.4). Every
 * operator the server accepts is offered; a value is typed by the kind chosen beside it.
 */
import { useState } from 'preact/hooks';
import { parseExact, stringifyExact } from './json-text.js';
import { OPERATORS } from './server-tables.js';

const TEXT_OPERATORS = new Set(['Contains', 'StartsWith', 'EndsWith']);
const LIST_OPERATORS = new Set(['In', 'NotIn']);

/** How a typed value box is read. */
export const KINDS = {
  auto: 'auto (JSON or text)',
  text: 'text',
  number: 'number',
  boolean: 'true / false',
  null: 'null',
  datetime: 'date-time',
  json: 'JSON (typed wrapper)',
} as const;
export type Kind = keyof typeof KINDS;

export interface Cond {
  field: string;
  operator: string;
  value: string;
  kind?: Kind;
}
export type Logic = 'And' | 'Or' | 'Not';
export interface Group {
  logic: Logic;
  items: FilterNode[];
}
export type FilterNode = Cond | Group;

export const isGroup = (n: FilterNode): n is Group => 'logic' in n;
export const emptyRoot = (): Group => ({ logic: 'And', items: [] });

const LOGIC_LABELS: Record<Logic, string> = {
  And: 'And: all of these',
  Or: 'Or: any of these',
  Not: 'Not: not all of these',
};

/** The builder's tree from the URL's `f` (a list of conditions, the older form, is read as their And). */
export function readFilter(text: string | null): Group {
  if (!text) return emptyRoot();
  try {
    const parsed = JSON.parse(text) as unknown;
    if (Array.isArray(parsed)) return { logic: 'And', items: parsed.filter(isCondLike) };
    return isGroupLike(parsed) ? parsed : emptyRoot();
  } catch {
    return emptyRoot();
  }
}

function isCondLike(n: unknown): n is Cond {
  const c = n as Cond;
  return typeof c?.field === 'string' && typeof c.operator === 'string' && typeof c.value === 'string';
}

function isGroupLike(n: unknown): n is Group {
  const g = n as Group;
  return (
    (g?.logic === 'And' || g?.logic === 'Or' || g?.logic === 'Not') &&
    Array.isArray(g.items) &&
    g.items.every((i) => isCondLike(i) || isGroupLike(i))
  );
}

/** The tree without blank conditions and empty groups; undefined when nothing is left. */
function pruned(node: FilterNode): FilterNode | undefined {
  if (!isGroup(node)) return node.field.trim() ? node : undefined;
  const items = node.items.map(pruned).filter((n): n is FilterNode => n !== undefined);
  return items.length ? { logic: node.logic, items } : undefined;
}

/** The tree as it goes in the URL, or undefined when it filters nothing. */
export function filterParam(root: Group): string | undefined {
  const kept = pruned(root);
  return kept ? JSON.stringify(kept) : undefined;
}

/** A value box read as `kind`; throws with a message a person can act on. */
function typedValue(text: string, kind: Kind): unknown {
  switch (kind) {
    case 'text':
      return text;
    case 'number': {
      if (/^-?\d+$/.test(text.trim())) return parseExact<unknown>(text.trim());
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`'${text}' is not a number`);
      return n;
    }
    case 'boolean':
      return text.trim() === 'true';
    case 'null':
      return null;
    case 'datetime':
      if (Number.isNaN(Date.parse(text))) throw new Error(`'${text}' is not a date-time (RFC 3339)`);
      return { type: 'DateTime', value: text.trim() };
    case 'json':
      try {
        return parseExact<unknown>(text);
      } catch {
        throw new Error(`'${text}' is not JSON`);
      }
    default:
      try {
        return parseExact<unknown>(text);
      } catch {
        return text;
      }
  }
}

/** The operand of a condition as the server wants it. */
function operand(c: Cond): unknown {
  const kind = c.kind ?? 'auto';
  if (c.operator === 'Exists') return c.value.trim() !== 'false';
  if (TEXT_OPERATORS.has(c.operator)) return c.value;
  if (LIST_OPERATORS.has(c.operator)) {
    const whole = c.value.trim();
    if (whole.startsWith('[')) return typedValue(whole, 'json');
    return whole === '' ? [] : whole.split(',').map((s) => typedValue(kind === 'text' ? s : s.trim(), kind));
  }
  return typedValue(c.value, kind);
}

/** The server's filter expression for the tree (undefined when it filters nothing); throws on a bad value. */
export function toServerFilter(root: Group): unknown {
  const kept = pruned(root);
  return kept ? expression(kept) : undefined;
}

function expression(node: FilterNode): unknown {
  if (!isGroup(node)) {
    return { type: 'Condition', content: { field: node.field.trim(), operator: node.operator, value: operand(node) } };
  }
  const inner = node.items.map(expression);
  if (node.logic === 'Not') {
    const one = inner.length === 1 ? inner[0] : { type: 'Logical', content: { operator: 'And', expressions: inner } };
    return { type: 'Logical', content: { operator: 'Not', expressions: [one] } };
  }
  return inner.length === 1 ? inner[0] : { type: 'Logical', content: { operator: node.logic, expressions: inner } };
}

/** The tree with the node at `path` (child indexes from the root) replaced by what `change` makes of it. */
function changeAt(node: FilterNode, path: number[], change: (n: FilterNode) => FilterNode | undefined): FilterNode {
  if (path.length === 0) return change(node) ?? node;
  const group = node as Group;
  const [i, ...rest] = path as [number, ...number[]];
  const items = group.items
    .map((child, j) => (j !== i ? child : rest.length ? changeAt(child, rest, change) : change(child)))
    .filter((n): n is FilterNode => n !== undefined);
  return { ...group, items };
}

/** The builder: edits a draft of the tree and hands it to `onApply`; `fields` feeds the field name suggestions. */
export function FilterBuilder({
  applied,
  fields,
  onApply,
}: {
  applied: Group;
  fields: string[];
  onApply: (root: Group) => void;
}) {
  const [draft, setDraft] = useState<Group>(applied);
  const [appliedKey, setAppliedKey] = useState(JSON.stringify(applied));
  if (JSON.stringify(applied) !== appliedKey) {
    setAppliedKey(JSON.stringify(applied));
    setDraft(applied);
  }
  const edit = (path: number[], change: (n: FilterNode) => FilterNode | undefined) =>
    setDraft(changeAt(draft, path, change) as Group);
  let problem = '';
  let preview = '';
  try {
    const f = toServerFilter(draft);
    preview = f === undefined ? '(no filter: every record)' : stringifyExact(f, 2);
  } catch (err) {
    problem = (err as Error).message;
  }
  const counters = { cond: 0, group: 0 };
  const hasApplied = filterParam(applied) !== undefined;
  return (
    <form
      class="filters card"
      aria-label="Filter"
      onSubmit={(e) => {
        e.preventDefault();
        if (!problem) onApply(draft);
      }}
    >
      <h2 class="small">Filter</h2>
      <datalist id="filter-fields">
        {fields.map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
      <GroupEditor group={draft} path={[]} edit={edit} counters={counters} />
      {problem && (
        <p class="field-errors" role="alert">
          {problem}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={!!problem}>
          Apply filter
        </button>
        {hasApplied && (
          <button type="button" class="secondary" onClick={() => onApply(emptyRoot())}>
            Clear
          </button>
        )}
      </div>
      <details class="filter-json">
        <summary>Filter as the server gets it</summary>
        <pre class="json" data-testid="filter-json">
          {preview}
        </pre>
      </details>
    </form>
  );
}

interface EditProps {
  path: number[];
  edit: (path: number[], change: (n: FilterNode) => FilterNode | undefined) => void;
  counters: { cond: number; group: number };
}

function GroupEditor({ group, path, edit, counters }: EditProps & { group: Group }) {
  const n = ++counters.group;
  const root = path.length === 0;
  const add = (item: FilterNode) => edit(path, (g) => ({ ...(g as Group), items: [...(g as Group).items, item] }));
  return (
    <fieldset class={`fgroup logic-${group.logic.toLowerCase()}`} data-group={n}>
      <legend>
        <label>
          <span class="visually-hidden">Logic of group {n}</span>
          <select
            value={group.logic}
            onChange={(e) => edit(path, (g) => ({ ...(g as Group), logic: e.currentTarget.value as Logic }))}
          >
            {(Object.keys(LOGIC_LABELS) as Logic[]).map((l) => (
              <option key={l} value={l}>
                {LOGIC_LABELS[l]}
              </option>
            ))}
          </select>
        </label>
      </legend>
      {group.items.length === 0 && <p class="muted small">{root ? 'No conditions: every record.' : 'Empty.'}</p>}
      {group.items.map((item, i) =>
        isGroup(item) ? (
          <GroupEditor key={i} group={item} path={[...path, i]} edit={edit} counters={counters} />
        ) : (
          <CondEditor key={i} cond={item} path={[...path, i]} edit={edit} counters={counters} />
        ),
      )}
      <div class="actions">
        <button
          type="button"
          class="secondary"
          aria-label={root ? undefined : `Add condition to group ${n}`}
          onClick={() => add({ field: '', operator: 'Eq', value: '' })}
        >
          Add condition
        </button>
        <button
          type="button"
          class="secondary"
          aria-label={`Add group to group ${n}`}
          onClick={() => add({ logic: 'Or', items: [{ field: '', operator: 'Eq', value: '' }] })}
        >
          Add group
        </button>
        {!root && (
          <button type="button" class="secondary" onClick={() => edit(path, () => undefined)}>
            Remove group {n}
          </button>
        )}
      </div>
    </fieldset>
  );
}

function CondEditor({ cond, path, edit, counters }: EditProps & { cond: Cond }) {
  const n = ++counters.cond;
  const set = (patch: Partial<Cond>) => edit(path, (c) => ({ ...(c as Cond), ...patch }));
  const kinded = !TEXT_OPERATORS.has(cond.operator) && cond.operator !== 'Exists';
  return (
    <div class="condition" data-condition={n}>
      <input
        aria-label={`Field of condition ${n}`}
        placeholder="field (a.b for nested)"
        list="filter-fields"
        value={cond.field}
        onInput={(e) => set({ field: e.currentTarget.value })}
      />
      <select
        aria-label={`Operator of condition ${n}`}
        value={cond.operator}
        onChange={(e) => set({ operator: e.currentTarget.value })}
      >
        {OPERATORS.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
      {cond.operator === 'Exists' ? (
        <select
          aria-label={`Value of condition ${n}`}
          value={cond.value === 'false' ? 'false' : 'true'}
          onChange={(e) => set({ value: e.currentTarget.value })}
        >
          <option value="true">exists</option>
          <option value="false">does not exist</option>
        </select>
      ) : (
        <input
          aria-label={`Value of condition ${n}`}
          placeholder={LIST_OPERATORS.has(cond.operator) ? 'a, b, c or a JSON array' : 'value'}
          disabled={cond.kind === 'null'}
          value={cond.value}
          onInput={(e) => set({ value: e.currentTarget.value })}
        />
      )}
      {kinded ? (
        <select
          aria-label={`Type of value of condition ${n}`}
          value={cond.kind ?? 'auto'}
          onChange={(e) => set({ kind: e.currentTarget.value as Kind })}
        >
          {(Object.keys(KINDS) as Kind[]).map((k) => (
            <option key={k} value={k}>
              {KINDS[k]}
            </option>
          ))}
        </select>
      ) : (
        <span class="muted small kind-note">{cond.operator === 'Exists' ? '' : 'text'}</span>
      )}
      <button
        type="button"
        class="secondary"
        aria-label={`Remove condition ${n}`}
        onClick={() => edit(path, () => undefined)}
      >
        ×
      </button>
    </div>
  );
}
