import { seededRandom } from '../stats/bootstrap.js';

// Leg orders for an A/B series. Pure functions of (repeats, order, seed) so a plan prints and tests alone.

export type Arm = 'A' | 'B';

// A B B A A B B A …: each pair reverses the previous one, so a linear drift cancels over every 4 legs.
export function abbaOrder(repeats: number): Arm[] {
  const out: Arm[] = [];
  for (let i = 0; i < repeats; i++) out.push(...(i % 2 === 0 ? (['A', 'B'] as Arm[]) : (['B', 'A'] as Arm[])));
  return out;
}

// Seeded random order, drawn per pair (each pair is A,B or B,A by a coin): the arms stay interleaved
// (never more than two legs of one arm in a row) while the order is not predictable from the position.
export function randomOrder(repeats: number, seed: number): Arm[] {
  const rand = seededRandom(seed);
  const out: Arm[] = [];
  for (let i = 0; i < repeats; i++) out.push(...(rand() < 0.5 ? (['A', 'B'] as Arm[]) : (['B', 'A'] as Arm[])));
  return out;
}
