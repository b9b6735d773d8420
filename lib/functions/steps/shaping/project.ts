/**
 * Project: keeps only `fields` of each working record, or drops them when
 * `exclude` is true. Same rules as a query's `select_fields` and
 * `exclude_fields` (a dotted path keeps its top-level field or drops the
 * nested key; `id` is always kept), compiled once at save.
 */
import { applyProjection, compileProjection, parseFieldList, type Projection } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import { step } from '../step.js';

export const project = step<Projection>({
  type: 'Project',
  access: 'none',
  compile: (m) => {
    if (!m.has('fields')) m.fail("missing required member 'fields'");
    const fields = atPath(`${m.path}.fields`, () => parseFieldList(m.raw('fields'), 'fields')) ?? [];
    const exclude = m.optionalBoolean('exclude') ?? false;
    // Keeping nothing keeps ids only; dropping nothing keeps everything.
    return exclude ? compileProjection(undefined, fields.length ? fields : undefined) : compileProjection(fields.length ? fields : ['id']);
  },
  run: (projection, rows) => rows.map((row) => applyProjection(row, projection)),
});
