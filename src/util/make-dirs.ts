import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { SkillSearchError } from '../errors.js';

/**
 * `mkdir -p` making each missing level once: Node's recursive mkdir loops forever where a parent
 * keeps answering ENOENT (under /proc). Failures are one `BAD_FILE` line naming the part at fault.
 */
export function makeDirs(dir: string, options: { readonly mode?: number; readonly subject?: string } = {}): void {
  const absolute = path.resolve(dir);
  const { mode } = options;
  const fail = (why: string, cause?: unknown): SkillSearchError =>
    new SkillSearchError('BAD_FILE', `${options.subject ?? `folder ${absolute}`}: cannot create it (${why})`, { cause });
  const missing: string[] = [];
  let existing = absolute;
  for (;;) {
    let stats;
    try {
      stats = statSync(existing);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a file stands in the way higher up, found as the walk goes on.
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        const parent = path.dirname(existing);
        if (parent === existing) throw fail(`${existing} does not exist`);
        missing.push(existing);
        existing = parent;
        continue;
      }
      throw fail(`${code ?? String(error)} at ${existing}`, error);
    }
    if (!stats.isDirectory()) throw fail(`${existing} is a file`);
    break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, mode === undefined ? undefined : { mode });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Made meanwhile by another process: fine when it is a folder.
      if (code === 'EEXIST' && statSync(level).isDirectory()) continue;
      throw fail(`${code ?? String(error)} at ${level}`, error);
    }
  }
}
