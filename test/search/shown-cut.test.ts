import { describe, expect, it } from 'vitest';
import { shownCount } from '../../src/search/abstention.js';

const threshold = 0.2;
const before = { relative: 1, floor: 1 };
const cut = { relative: 0.05, floor: 0.5 };

describe('shownCount', () => {
  it('shows nothing when the first hit misses the threshold, whatever the cut', () => {
    expect(shownCount([0.19, 0.18], threshold, cut, 5)).toBe(0);
    expect(shownCount([], threshold, cut, 5)).toBe(0);
    expect(shownCount([0.9], threshold, cut, 0)).toBe(0);
  });

  it('with the threshold alone, shows the hits that pass it', () => {
    expect(shownCount([0.9, 0.3, 0.15, 0.12], threshold, before, 5)).toBe(2);
  });

  it('also shows a later hit within `relative` of the first and above `floor` × the threshold', () => {
    // 0.15 and 0.12 are under the threshold but at least half of it and a twentieth of the first.
    expect(shownCount([0.9, 0.3, 0.15, 0.12, 0.05], threshold, cut, 5)).toBe(4);
    // A hit far below the first stops the list even above the floor.
    expect(shownCount([0.9, 0.3, 0.15], threshold, { relative: 0.5, floor: 0.5 }, 5)).toBe(2);
    expect(shownCount([0.9, 0.3, 0.15, 0.12], threshold, cut, 3)).toBe(3);
  });

  it('shows every hit at threshold 0 (abstention off), up to k', () => {
    expect(shownCount([0.01, 0, 0], 0, before, 2)).toBe(2);
  });
});
