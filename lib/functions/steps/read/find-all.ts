/** FindAll: the working records become every record of a collection. */
import type { Query } from '../../../engine/index.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';

const ALL: Query = Object.freeze({ sort: [], skip: 0, bypassCache: false, bypassRipple: false });

export const findAll = step<{ collection: Template }>({
  type: 'FindAll',
  access: 'read',
  compile: (m) => ({ collection: m.template('collection') }),
  run: (cfg, rows, x) => x.session.find(x.text(cfg.collection, rows[0], 'collection'), ALL),
});
