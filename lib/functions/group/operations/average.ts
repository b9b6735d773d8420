/** Average: the mean of the number-typed values as a Float (also when whole: 60 is Float 60); null when there are none. */
import { floatValue, numericValue, type GroupOperation } from '../group-operation.js';

interface Mean { sum: number; n: number }

export const average: GroupOperation<Mean> = {
  name: 'Average',
  needsInput: true,
  init: () => ({ sum: 0, n: 0 }),
  add: (s, value) => {
    const x = numericValue(value);
    if (x !== undefined) {
      s.sum += x;
      s.n++;
    }
    return s;
  },
  result: (s) => (s.n === 0 ? null : floatValue(s.sum / s.n)),
};
