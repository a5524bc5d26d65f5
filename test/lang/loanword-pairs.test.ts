import { describe, expect, it } from 'vitest';
import { catalogWords, LoanwordMatcher } from '../../src/lang/loanwords.js';

/** Each skill's words in order, as the catalog hands them over. */
const words = (...skills: string[]): string[][] => skills.map((text) => text.split(' '));

describe('catalog word pairs', () => {
  it('hands over single words and the word pairs the katakana is split into', () => {
    const skills = words('write release notes for the next release', 'release notes from merged pull requests', 'recent changes only');
    const { frequencies, followers } = catalogWords(skills);
    const matcher = new LoanwordMatcher(frequencies, followers);
    expect([...frequencies.keys()].every((word) => !word.includes(' '))).toBe(true);
    expect(frequencies.get('release')).toBe(2);
    // Pairs are counted per skill, two words of three letters or more side by side.
    expect(followers('release')).toEqual(new Map([['notes', 2]]));
    expect(followers('the')).toEqual(new Map([['next', 1]]));
    expect(matcher.match('リリースノート')).toEqual(['release notes']);
  });

  it('takes a pair only among the most frequent terms of its skeleton, as a single word is', () => {
    // Eight single words share r-s-n-t with リリースノート, none at its length, each in more skills than the pair.
    const twins = ['rasant', 'resent', 'risent', 'rosant', 'rusent', 'recent', 'resint', 'rasint'];
    const skills = words('release notes', ...twins, ...twins);
    const { frequencies, followers } = catalogWords(skills);
    expect(new LoanwordMatcher(frequencies, followers).match('リリースノート')).not.toContain('release notes');
    const fewer = catalogWords(words('release notes', ...twins.slice(0, 7), ...twins.slice(0, 7)));
    expect(new LoanwordMatcher(fewer.frequencies, fewer.followers).match('リリースノート')).toEqual(['release notes']);
  });
});
