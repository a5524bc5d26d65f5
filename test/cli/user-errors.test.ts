import { describe, expect, it } from 'vitest';
import { SkillSearchError } from '../../src/errors.js';
import { reportError } from '../../src/cli/run.js';

function report(error: unknown): { code: number; stderr: string } {
  let stderr = '';
  const code = reportError(error, { stderr: { write: (chunk: string) => ((stderr += chunk), true) } });
  return { code, stderr };
}

const fsError = (code: string, path: string) => Object.assign(new Error(`${code}: failed, write '${path}'`), { code, path, syscall: 'write' });

describe('file-system refusals are the user’s to fix: one line, exit 1', () => {
  it('a full disk while indexing', () => {
    expect(report(fsError('ENOSPC', '/home/u/.cache/skill-search/idx/vectors.bin'))).toEqual({
      code: 1,
      stderr: 'skill-search: /home/u/.cache/skill-search/idx/vectors.bin: no space left on device (ENOSPC)\n',
    });
  });

  it('a read-only ~/.claude, also when wrapped in another error', () => {
    const wrapped = new SkillSearchError('INTERNAL', 'cannot save', { cause: fsError('EACCES', '/home/u/.claude/settings.json') });
    expect(report(wrapped)).toEqual({ code: 1, stderr: 'skill-search: /home/u/.claude/settings.json: permission denied (EACCES)\n' });
    expect(report(fsError('EROFS', '/home/u/.claude'))).toEqual({ code: 1, stderr: 'skill-search: /home/u/.claude: read-only file system (EROFS)\n' });
  });

  it('a bug is still reported with its stack', () => {
    const { code, stderr } = report(new TypeError('x is undefined'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^skill-search: internal error: TypeError: x is undefined\n {4}at /);
  });
});
