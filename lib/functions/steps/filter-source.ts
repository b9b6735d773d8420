/**
 * A step's QueryExpression member (`filter`, protocol.md 2.4): parsed once
 * at save time with the engine's parser when it holds no placeholders or
 * Parameter references, so a bad filter is a 400 naming the member; with
 * them it is kept as a template and parsed after each resolution (a bad
 * resolved filter is then the step's 400).
 */
import { InvalidInput } from '../../errors.js';
import { parseFilter, type Filter } from '../../engine/index.js';
import { isConstant, type Template } from '../templates/index.js';
import type { Execution, MemberNames, MemberReader, Row } from './step.js';

export type FilterSource = { readonly parsed: Filter } | { readonly template: Template; readonly member: string };

/** The filter member (required). */
export function compileFilter(m: MemberReader, names: MemberNames): FilterSource {
  const member = presentName(m, names);
  const template = m.template(names);
  if (!isConstant(template)) return { template, member };
  try {
    return { parsed: parseFilter(template.v, member) };
  } catch (err) {
    if (err instanceof InvalidInput) m.fail(err.message, member);
    throw err;
  }
}

/** The filter member, undefined when absent or null. */
export function optionalFilter(m: MemberReader, names: MemberNames): FilterSource | undefined {
  return m.has(names) && m.raw(names) !== null ? compileFilter(m, names) : undefined;
}

/** The filter for this run: parsed at save, or resolved against `row` and the parameters, then parsed. */
export function resolveFilter(source: FilterSource, x: Execution, row: Row | undefined): Filter {
  return 'parsed' in source ? source.parsed : parseFilter(x.resolve(source.template, row), source.member);
}

/** The spelling present in the step (the canonical one when none is, for the "missing" message). */
function presentName(m: MemberReader, names: MemberNames): string {
  const list = typeof names === 'string' ? [names] : names;
  return list.find((n) => m.has(n)) ?? list[0]!;
}
