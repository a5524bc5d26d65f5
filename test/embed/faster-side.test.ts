import { describe, expect, it } from 'vitest';
import { FasterSide } from '../../src/embed/faster-side.js';

/** Runs `calls` picks, each side doing one unit of work at the given rate (units per ms). */
function run(sides: FasterSide, calls: number, rates: readonly [number, number]): number[] {
  const picked = [0, 0];
  for (let i = 0; i < calls; i += 1) {
    const side = sides.pick();
    picked[side]! += 1;
    sides.record(side, rates[side]!, 1);
  }
  return picked;
}

describe('FasterSide', () => {
  it('tries side 0, then side 1, then keeps to the faster, trying the other after 32, 64, 128 … calls up to 512', () => {
    const sides = new FasterSide();
    expect(sides.pick()).toBe(0);
    sides.record(0, 100, 10);
    expect(sides.pick()).toBe(1);
    sides.record(1, 100, 20);
    expect(run(sides, 31, [10, 5])).toEqual([31, 0]);
    expect(run(sides, 1, [10, 5])).toEqual([0, 1]);
    expect(run(sides, 64, [10, 5])).toEqual([63, 1]);
    expect(run(sides, 128, [10, 5])).toEqual([127, 1]);
    expect(run(sides, 256 + 512 * 3, [10, 5])).toEqual([256 + 512 * 3 - 4, 4]);
  });

  it('moves to the other side when the load makes it the faster one', () => {
    const sides = new FasterSide();
    run(sides, 64, [10, 5]);
    // Side 0 slows to a fifth (other processes took the cores): the next try of side 1 finds it faster.
    const picked = run(sides, 128, [2, 5]);
    expect(picked[1]).toBeGreaterThan(picked[0]!);
    expect(sides.pick()).toBe(1);
  });

  it('counts a call that took no measurable time as very fast, not as infinitely fast', () => {
    const sides = new FasterSide();
    sides.pick();
    sides.record(0, 10, 0);
    sides.pick();
    sides.record(1, 10, 1);
    expect(sides.pick()).toBe(0);
    for (let i = 0; i < 40; i += 1) sides.record(0, 0.001, 1);
    expect(sides.pick()).toBe(1);
  });

  it('keeps its side while the other is less than 1.25 times faster (rates of calls of other shapes are noisy)', () => {
    const sides = new FasterSide();
    run(sides, 2, [10, 5]);
    expect(run(sides, 200, [10, 12])).toEqual([198, 2]);
    expect(run(sides, 200, [10, 13])[1]).toBeGreaterThan(150);
    expect(sides.pick()).toBe(1);
  });
});
