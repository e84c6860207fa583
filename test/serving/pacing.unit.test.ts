/**
 * The pacing controller's arithmetic (domain/serving/pacing.ts): the plan's
 * straight line, full participation when behind or with nothing observed yet,
 * a share when ahead, and a simulated flight that stays on its line.
 */
import { BEHIND_TOLERANCE, MIN_PARTICIPATION, pacingStep, plannedSpend, type PacingState } from '../../domain/serving/pacing';

const HOUR = 3_600_000;
const flight = { startMs: 0, endMs: 10 * HOUR, limitMicros: 10_000_000 };

test('the plan is a straight line from start to end over the budget', () => {
  expect(plannedSpend(flight, -1)).toBe(0);
  expect(plannedSpend(flight, 0)).toBe(0);
  expect(plannedSpend(flight, HOUR)).toBe(1_000_000);
  expect(plannedSpend(flight, 5 * HOUR)).toBe(5_000_000);
  expect(plannedSpend(flight, 11 * HOUR)).toBe(10_000_000);
});

test('nothing observed yet, or behind plan: bid on everything', () => {
  expect(pacingStep({ ...flight, spentMicros: 0 }, null, HOUR).participation).toBe(1);
  const previous: PacingState = { participation: 0.5, fullRateMicrosPerSecond: 1000, observedSpentMicros: 900_000, observedAtMs: HOUR - 10_000 };
  const behind = 1_000_000 * (1 - 2 * BEHIND_TOLERANCE);
  expect(pacingStep({ ...flight, spentMicros: behind }, previous, HOUR).participation).toBe(1);
});

test('ahead of plan: a share of the requests, from the spend rate at full participation', () => {
  // 10 s at participation 1 spent 10,000 micros: 1,000/s at full. The line needs 9,000,000 over 9 h = 278/s.
  const previous: PacingState = { participation: 1, fullRateMicrosPerSecond: null, observedSpentMicros: 990_000, observedAtMs: HOUR - 10_000 };
  const step = pacingStep({ ...flight, spentMicros: 1_000_000 }, previous, HOUR);
  expect(step.fullRateMicrosPerSecond).toBeCloseTo(1000, 5);
  expect(step.participation).toBeCloseTo(9_000_000 / (9 * 3600) / 1000, 3);
  expect(step.plannedSpentMicros).toBe(1_000_000);
  // Far ahead: the share shrinks to its floor, never to nothing.
  const far = pacingStep({ ...flight, spentMicros: 5_000_000 }, { ...previous, fullRateMicrosPerSecond: 1000, observedSpentMicros: 4_990_000 }, HOUR);
  expect(far.participation).toBe(MIN_PARTICIPATION);
});

test('a simulated 24-hour flight with diurnal traffic worth 5x the budget stays within 10% of its line and delivers 95%', () => {
  const day = { startMs: 0, endMs: 24 * HOUR, limitMicros: 100_000_000 };
  const price = 2000;
  const meanPerSecond = (5 * day.limitMicros) / price / (24 * 3600);
  let spent = 0;
  let state: PacingState | null = null;
  let maxDeviation = 0;
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let t = 0; t < 24 * 3600; t += 10) {
    state = pacingStep({ ...day, spentMicros: spent }, state, t * 1000);
    const planned = plannedSpend(day, t * 1000);
    if (t >= 0.05 * 24 * 3600 && (state.participation < 1 || spent > planned)) maxDeviation = Math.max(maxDeviation, Math.abs(spent - planned) / planned);
    const rate = meanPerSecond * (1 + (9 / 11) * Math.sin((2 * Math.PI * t) / (24 * 3600) - Math.PI / 2));
    for (let i = 0; i < Math.round(rate * 10); i += 1) if (random() < state.participation) spent = Math.min(day.limitMicros, spent + price);
  }
  expect(maxDeviation).toBeLessThan(0.1);
  expect(spent / day.limitMicros).toBeGreaterThanOrEqual(0.95);
});
