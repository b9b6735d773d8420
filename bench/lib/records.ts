/**
 * The records HTTP scenarios store: about 200 bytes of JSON each (the size
 * the figures use), deterministic, so every run measures the same data.
 */
const CITIES = ['Oslo', 'Lima', 'Pune', 'Kyiv', 'Quito', 'Perth'];

export function benchRecord(i: number): Record<string, unknown> {
  return {
    name: `user ${i}`,
    email: `user${i}@example.com`,
    age: 18 + (i % 60),
    city: CITIES[i % CITIES.length],
    active: i % 3 === 0,
    score: ((i * 7919) % 10_000) / 100,
    bio: `Member ${i} likes long walks, short queries and predictable latency.`.padEnd(90, '.'),
  };
}
