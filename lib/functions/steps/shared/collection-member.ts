/**
 * The `collection` member of a read step: a template, so `"{{table}}"`
 * works, and a literal name is checked at save with the engine's naming
 * rule, so a misspelt name is a 400 naming the member, not a call failure.
 */
import { validateCollectionName } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import { isConstant, type Template } from '../../templates/index.js';
import type { MemberReader } from '../step.js';

export function collectionMember(m: MemberReader): Template {
  const t = m.template('collection');
  checkCollection(t, `${m.path}.collection`);
  return t;
}

/** Checks a literal collection name found at `path`; templates with placeholders are checked when resolved. */
export function checkCollection(t: Template, path: string): void {
  if (isConstant(t)) atPath(path, () => validateCollectionName(t.v));
}
