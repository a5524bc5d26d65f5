/** The library catalogue's words, built as CrossLingual builds them, for the loanword tests (needs SKILL_SEARCH_EVAL_DIR/library). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitWords } from '../../src/lexical/tokenize.js';

const EVAL_DIR = process.env.SKILL_SEARCH_EVAL_DIR ?? join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'eval');
export const LIBRARY = join(EVAL_DIR, 'library');

/** Each library skill's words (name and description), once per skill name, in source order (as the eval suites load them). */
export function libraryWordLists(): string[][] {
  const seen = new Set<string>();
  const lists: string[][] = [];
  for (const source of readdirSync(LIBRARY).sort()) {
    const index = join(LIBRARY, source, '_index.jsonl');
    if (!existsSync(index)) continue;
    for (const line of readFileSync(index, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const entry = JSON.parse(line) as { name: unknown; description?: unknown };
      const name = String(entry.name);
      if (seen.has(name)) continue;
      seen.add(name);
      const description = typeof entry.description === 'string' ? entry.description : name;
      lists.push(splitWords(`${name} ${description}`));
    }
  }
  return lists;
}
