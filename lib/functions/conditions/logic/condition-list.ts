/** The `{conditions: [...]}` value of And and Or. Its length is bounded by the node budget of compile-condition.ts. */
import { invalidAt, kindOfRaw } from '../../definition-path.js';
import type { CompileContext, Condition } from '../condition.js';
import { conditionMembers } from '../members.js';

export function compileConditionList(value: unknown, path: string, ctx: CompileContext): readonly Condition[] {
  const list = conditionMembers(value, path, ['conditions'], ['conditions']).conditions;
  if (!Array.isArray(list)) throw invalidAt(`${path}.conditions`, `expected an array of conditions, got ${kindOfRaw(list)}`);
  return Object.freeze(list.map((raw, i) => ctx.child(raw, `${path}.conditions[${i}]`)));
}
