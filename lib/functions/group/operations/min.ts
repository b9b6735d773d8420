/** Min: the smallest value (min-max.ts order), of its own type; null when there are none. */
import { extremum } from './min-max.js';

export const min = extremum('Min', (ordered) => ordered < 0);
