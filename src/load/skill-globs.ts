/**
 * Name patterns for choosing skills: `*` any run of characters, `?` one character. A
 * pattern with a `/` is matched against the skill's file path instead (`**` crosses folders,
 * `*` does not), so `**\/vendor/**` drops a whole folder.
 */
import type { Skill } from '../types.js';

function toRegExp(pattern: string): RegExp {
  const byPath = pattern.includes('/');
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*') {
      if (pattern[i + 1] === '*') {
        source += '.*';
        i++;
        if (pattern[i + 1] === '/') i++;
      } else source += byPath ? '[^/]*' : '.*';
    } else if (char === '?') source += byPath ? '[^/]' : '.';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, byPath ? '' : 'i');
}

export class SkillMatcher {
  readonly #name: RegExp[] = [];
  readonly #path: RegExp[] = [];

  constructor(patterns: readonly string[]) {
    for (const pattern of patterns) (pattern.includes('/') ? this.#path : this.#name).push(toRegExp(pattern));
  }

  get empty(): boolean {
    return this.#name.length + this.#path.length === 0;
  }

  matches(skill: Pick<Skill, 'name' | 'path'>): boolean {
    const filePath = skill.path.replaceAll('\\', '/');
    return this.#name.some((re) => re.test(skill.name)) || this.#path.some((re) => re.test(filePath));
  }
}
