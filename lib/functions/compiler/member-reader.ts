/**
 * Reads one step's members at save time, for its `compile`: every failure
 * is an InvalidInput naming `<step path>.<member>`, and aliases (other
 * clients' spellings) are read in order, canonical first.
 */
import { invalidAt } from '../definition-path.js';
import type { CompiledStep, MemberNames, MemberReader } from '../steps/step.js';
import { compileTemplate, isHostileName, type Template, type TemplateContext } from '../template.js';

const MAX_FIELD_PATH = 1024;

/** Compiles a nested step list; given by the compiler so this module needs no step table. */
export type StepListCompiler = (raw: unknown, path: string) => readonly CompiledStep[];

/** A member of an earlier step, as written, and its path. */
export interface PrecedingMember {
  readonly value: unknown;
  readonly path: string;
}

export class StepMembers implements MemberReader {
  constructor(
    private readonly body: Readonly<Record<string, unknown>>,
    readonly path: string,
    private readonly context: TemplateContext & { readonly transactional: boolean },
    private readonly compileList: StepListCompiler,
    private readonly preceding?: PrecedingMember,
  ) {}

  precedingCollection(): Template | undefined {
    const preceding = this.preceding;
    return preceding === undefined ? undefined : compileTemplate(preceding.value, preceding.path, this.context);
  }

  get transactional(): boolean {
    return this.context.transactional;
  }

  private find(names: MemberNames): { name: string; value: unknown } | undefined {
    for (const name of typeof names === 'string' ? [names] : names) {
      if (Object.hasOwn(this.body, name) && this.body[name] !== undefined) return { name, value: this.body[name] };
    }
    return undefined;
  }

  private canonical(names: MemberNames): string {
    return typeof names === 'string' ? names : names[0]!;
  }

  private required(names: MemberNames): { name: string; value: unknown } {
    const hit = this.find(names);
    if (hit === undefined) this.fail(`missing required member '${this.canonical(names)}'`);
    return hit;
  }

  has(names: MemberNames): boolean {
    return this.find(names) !== undefined;
  }

  raw(names: MemberNames): unknown {
    return this.find(names)?.value;
  }

  template(names: MemberNames): Template {
    const { name, value } = this.required(names);
    return compileTemplate(value, `${this.path}.${name}`, this.context);
  }

  optionalTemplate(names: MemberNames): Template | undefined {
    const hit = this.find(names);
    if (hit === undefined || hit.value === null) return undefined;
    return compileTemplate(hit.value, `${this.path}.${hit.name}`, this.context);
  }

  string(names: MemberNames): string {
    const { name, value } = this.required(names);
    if (typeof value !== 'string' || value === '') this.fail('must be a non-empty string', name);
    return value;
  }

  optionalString(names: MemberNames): string | undefined {
    const hit = this.find(names);
    if (hit === undefined || hit.value === null) return undefined;
    if (typeof hit.value !== 'string') this.fail('must be a string', hit.name);
    return hit.value;
  }

  optionalBoolean(names: MemberNames): boolean | undefined {
    const hit = this.find(names);
    if (hit === undefined || hit.value === null) return undefined;
    if (typeof hit.value !== 'boolean') this.fail('must be a boolean', hit.name);
    return hit.value;
  }

  optionalInteger(names: MemberNames, min: number, max: number): number | undefined {
    const hit = this.find(names);
    if (hit === undefined || hit.value === null) return undefined;
    const value = hit.value;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(`must be an integer between ${min} and ${max}`, hit.name);
    }
    return value;
  }

  fieldPath(names: MemberNames): readonly string[] {
    const { name, value } = this.required(names);
    return this.toFieldPath(value, name);
  }

  optionalFieldPath(names: MemberNames): readonly string[] | undefined {
    const hit = this.find(names);
    return hit === undefined || hit.value === null ? undefined : this.toFieldPath(hit.value, hit.name);
  }

  private toFieldPath(value: unknown, member: string): readonly string[] {
    if (typeof value !== 'string' || value === '' || value.length > MAX_FIELD_PATH)
      this.fail(`must be a field name (1-${MAX_FIELD_PATH} characters)`, member);
    const segments = value.split('.');
    if (segments.some((s) => s === '')) this.fail(`bad field path '${value}'`, member);
    const hostile = segments.find(isHostileName);
    if (hostile !== undefined) this.fail(`forbidden field name '${hostile}'`, member);
    return Object.freeze(segments);
  }

  optionalStringList(names: MemberNames): string[] | undefined {
    const hit = this.find(names);
    if (hit === undefined || hit.value === null) return undefined;
    if (!Array.isArray(hit.value) || !hit.value.every((s) => typeof s === 'string'))
      this.fail('must be an array of strings', hit.name);
    return [...hit.value] as string[];
  }

  steps(names: MemberNames): readonly CompiledStep[] {
    const { name, value } = this.required(names);
    return this.compileList(value, `${this.path}.${name}`);
  }

  optionalSteps(names: MemberNames): readonly CompiledStep[] | undefined {
    const hit = this.find(names);
    return hit === undefined || hit.value === null
      ? undefined
      : this.compileList(hit.value, `${this.path}.${hit.name}`);
  }

  fail(message: string, member?: string): never {
    throw invalidAt(member === undefined ? this.path : `${this.path}.${member}`, message);
  }
}
