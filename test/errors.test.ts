import { describe, expect, it } from 'vitest';
import { SkillSearchError, abortError, badOption, errorMessage, isAbortError, notJson, unreadableFile } from '../src/errors.js';

describe('errors', () => {
  it('prefixes every message once, and errorMessage takes the prefix off in one place', () => {
    const error = new SkillSearchError('BAD_FILE', "--skills-dir 'x': no such directory");
    expect(error.message).toBe("skill-search: --skills-dir 'x': no such directory");
    expect(errorMessage(error)).toBe("--skills-dir 'x': no such directory");
    expect(errorMessage(new Error('ENOENT: no such file'))).toBe('ENOENT: no such file');
    expect(errorMessage({ message: 'a plain object' })).toBe('a plain object');
    expect(errorMessage('a string')).toBe('a string');
    expect(errorMessage(undefined)).toBe('undefined');
  });

  it('words every bad option one way', () => {
    const error = badOption('searchK', 'be a positive integer', 0);
    expect([error.code, error.message]).toEqual(['BAD_OPTION', 'skill-search: Expected `searchK` to be a positive integer, got `0`']);
    expect(badOption('skillsDirs', 'be an array of paths', JSON.stringify([1])).message).toBe(
      'skill-search: Expected `skillsDirs` to be an array of paths, got `[1]`',
    );
  });

  it('words a file that cannot be read or parsed one way', () => {
    const missing = Object.assign(new Error("ENOENT: no such file or directory, open 'q.jsonl'"), { code: 'ENOENT' });
    expect([unreadableFile('q.jsonl', missing).code, unreadableFile('q.jsonl', missing).message]).toEqual([
      'BAD_FILE',
      'skill-search: q.jsonl: cannot read (ENOENT)',
    ]);
    expect(unreadableFile('q.jsonl', new Error('disk on fire')).message).toBe('skill-search: q.jsonl: cannot read (disk on fire)');
    let parseError: unknown;
    try {
      JSON.parse('{');
    } catch (error) {
      parseError = error;
    }
    expect(notJson('a.json:3', parseError, '; nothing was changed').message).toMatch(/^skill-search: a\.json:3: not valid JSON \(.+\); nothing was changed$/);
  });

  it('tells user errors (exit 1) from bugs (exit 2) by code', () => {
    expect(new SkillSearchError('BAD_FLAG', 'x').isUserError).toBe(true);
    expect(new SkillSearchError('INTERNAL', 'x').isUserError).toBe(false);
  });

  it('builds AbortErrors one way: the signal’s own AbortError, else one that says why', () => {
    const controller = new AbortController();
    const reason = abortError(undefined, 'received SIGINT');
    expect(reason.message).toBe('skill-search: received SIGINT');
    expect(isAbortError(reason)).toBe(true);
    controller.abort(reason);
    expect(abortError(controller.signal)).toBe(reason);

    const plain = new AbortController();
    plain.abort('stop');
    const wrapped = abortError(plain.signal);
    expect([wrapped.name, wrapped.message, wrapped.cause]).toEqual(['AbortError', 'skill-search: operation aborted', 'stop']);
    expect(isAbortError(new Error('x'))).toBe(false);
  });
});
