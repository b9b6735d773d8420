/**
 * Slugify: `input` as a URL slug under `output_field`: accents dropped
 * (Unicode NFKD, combining marks removed, a few letters spelled out: ß ss,
 * æ ae, ø o...), lowercase ASCII letters and digits kept, every other run
 * of characters one `-`, no `-` at either end. Text with no Latin letters or
 * digits gives an empty slug.
 */
import type { Template } from '../../template.js';
import { textInput, writeEach } from '../field-output.js';
import { step } from '../step.js';

const SPELLED: Readonly<Record<string, string>> = Object.freeze({
  ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ħ: 'h', ı: 'i', ŧ: 't',
});

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøđðłþħıŧ]/g, (c) => SPELLED[c]!)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export const slugifyStep = step<{ input: Template; output: readonly string[] }>({
  type: 'Slugify',
  access: 'none',
  compile: (m) => ({ input: m.template('input'), output: m.fieldPath('output_field') }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => slugify(textInput(x, cfg.input, row, 'input'))),
});
