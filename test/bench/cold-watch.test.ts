import { describe, expect, it } from 'vitest';
import { marker } from '../../bench/cold-watch.js';
import { tokenize } from '../../src/lexical/tokenize.js';

describe('cold-watch markers', () => {
  it('tokenise to themselves, one distinct term per edit', () => {
    // 100 SKILL.md edits and 5 tools-file edits by default; more to leave room for `--watch-edits`.
    const terms = new Set<string>();
    for (let n = 0; n < 2000; n++) {
      const word = marker(n);
      expect(tokenize(word)).toEqual([word]);
      terms.add(word);
    }
    expect(terms.size).toBe(2000);
  });
});
