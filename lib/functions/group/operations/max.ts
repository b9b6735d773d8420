/** Max: the largest value (min-max.ts order), keeping its input type; null when there are none. */
import { extremum } from './min-max.js';

export const max = extremum('Max', (ordered) => ordered > 0);
