/**
 * Collection names: 1-128 characters of letters, digits, `_`, `-` and `.`,
 * not starting with `.` or `-`. Names that are JavaScript prototype keys are
 * refused outright, since names also appear as object keys (permissions).
 */
import { InvalidInput, MESSAGES } from '../../errors.js';

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const RESERVED: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function validateCollectionName(name: unknown): string {
  if (name === undefined || name === null || name === '') throw new InvalidInput(MESSAGES.collectionNameRequired);
  if (typeof name !== 'string' || !NAME.test(name) || RESERVED.has(name)) {
    throw new InvalidInput(MESSAGES.invalidCollectionName);
  }
  return name;
}

/** Internal collections (chat storage, functions, audit) hidden by `exclude_internal`. */
export function isInternalCollection(name: string): boolean {
  return name.startsWith('chat_configurations_') || name.startsWith('chat_messages_') || name.includes('__');
}
