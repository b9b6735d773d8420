/**
 * FindById: the working records become the one record with `record_id` (an
 * id or a primary-key alias value), or none when there is no such record,
 * so an `If` with `HasRecords` can branch on it.
 */
import { NotFound } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import { collectionMember } from '../shared/collection-member.js';
import { step } from '../step.js';

export const findById = step<{ collection: Template; recordId: Template }>({
  type: 'FindById',
  access: 'read',
  compile: (m) => ({ collection: collectionMember(m), recordId: m.template('record_id') }),
  run: (cfg, rows, x) => {
    const row = rows[0];
    const collection = x.text(cfg.collection, row, 'collection');
    const id = x.text(cfg.recordId, row, 'record_id');
    try {
      return [x.session.findById(collection, id)];
    } catch (err) {
      if (err instanceof NotFound) return [];
      throw err;
    }
  },
});
