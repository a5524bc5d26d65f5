import { describe, expect, it } from 'vitest';
import { closeNames, editDistance } from '../../src/integrations/suggest.js';

describe('editDistance', () => {
  it.each([
    ['kitten', 'sitting', 3],
    ['pdf', 'pdf', 0],
    ['', 'abc', 3],
    ['flaky-test', 'flaky-tests', 1],
  ])('%s → %s = %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  it('stops early past the bound', () => {
    expect(editDistance('abcdefgh', 'zzzzzzzz', 2)).toBe(3);
  });
});

describe('closeNames', () => {
  const names = ['pdf-forms', 'pdf', 'git-bisect', 'flaky-tests', 'image-resize', 'sql-migrations'];

  it('orders by edit distance, then alphabetically', () => {
    expect(closeNames('pdf-form', names)).toEqual(['pdf-forms', 'pdf']);
  });

  it('matches case-insensitively and by containment', () => {
    expect(closeNames('BISECT', names)).toEqual(['git-bisect']);
    expect(closeNames('migrations', names)).toEqual(['sql-migrations']);
  });

  it('returns nothing for an unrelated or empty name, and at most `limit`', () => {
    expect(closeNames('zzzzzz', names)).toEqual([]);
    expect(closeNames('  ', names)).toEqual([]);
    expect(closeNames('p', ['pa', 'pb', 'pc', 'pd'], 2)).toEqual(['pa', 'pb']);
  });
});
