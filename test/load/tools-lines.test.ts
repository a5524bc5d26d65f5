import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SKILL_LIMITS } from '../../src/load/skill.js';
import { loadToolsJsonl, parseToolsLine } from '../../src/load/tools-jsonl.js';
import { StoreToolsCache } from '../../src/store/store-tools-cache.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { diffToolsLines, readToolsLines, tableOutcome, type LineDiff, type ReadLineTable } from '../../src/load/tools-lines.js';
import type { ToolsCache } from '../../src/load/tools-cache.js';
import { randomTools, removeDir, tempDir } from './helpers.js';

const tool = (id: string, description: string): string => JSON.stringify({ id, name: id, description });

/** Each new line of `diff`: its outcome, the old line it is, the skill it made when parsed. */
function diffed(table: ReadLineTable, diff: LineDiff | undefined): { outcome: unknown; old: number | undefined; skill: unknown }[] {
  return Array.from(diff!.oldOf, (old, index) => {
    if (old >= 0) return { outcome: tableOutcome(table, old), old, skill: undefined };
    const fresh = diff!.fresh.get(index)!;
    return { outcome: fresh.outcome, old: undefined, skill: fresh.skill };
  });
}

/** Every line's outcome in `table`. */
const outcomes = (table: ReadLineTable | undefined): unknown[] | undefined => table?.ids.map((_, index) => tableOutcome(table, index));

const OLD = [
  tool('a', 'Archive old log files'),
  tool('b', 'Build release notes'),
  tool('c', 'Compress images'),
  tool('a', 'A second line for id a, shadowed by the first'),
  'not json',
  tool('d', 'Deploy the staging site'),
  tool('e', 'Export invoices'),
  '',
  tool('f', 'Format SQL queries'),
];

const NEW = [
  tool('a', 'Archive old log files'),
  tool('b', 'Build release notes from merged pull requests'), // edited
  tool('d', 'Deploy the staging site'), // moved up from line 6
  tool('c', 'Compress images'),
  tool('a', 'A second line for id a, shadowed by the first'),
  'not json',
  tool('g', 'Generate changelogs'), // added (e removed)
  '{"id": "h", "description": ', // broken, added
  '',
  tool('f', 'Format SQL queries'),
];

describe('a tools file diffed against the line table of its last load', () => {
  let dir: string;
  let file: string;
  let tables: StoreToolsCache;
  beforeEach(async () => {
    dir = await tempDir();
    file = join(dir, 'tools.jsonl');
    tables = new StoreToolsCache(join(dir, 'store.sqlite'));
    await writeFile(file, OLD.join('\n'));
  });
  afterEach(() => removeDir(dir));

  const key = () => ({ path: file, source: 'skills' as const, rank: 5, limits: DEFAULT_SKILL_LIMITS });
  const context = () => ({ path: file, source: 'skills' as const, rank: 5, limits: DEFAULT_SKILL_LIMITS });

  it('parses exactly the changed and added lines; a moved line and the unchanged ones keep their old outcome', async () => {
    await loadToolsJsonl(file, { cache: tables });
    const table = readToolsLines(tables, key());
    expect(table?.ids).toEqual(['a', 'b', 'c', 'a', null, 'd', 'e', null, 'f']);
    await writeFile(file, NEW.join('\n'));

    const parsed: number[] = [];
    const lines = diffed(
      table!,
      diffToolsLines(table!, readFileSync(file), (line, index) => {
        parsed.push(index);
        return parseToolsLine(line.trim(), index, context());
      }),
    );
    expect(parsed).toEqual([1, 6, 7]);
    // Each line's old line: the moved one found where it went, the others in place.
    expect(lines.map((line) => line.old)).toEqual([0, undefined, 5, 2, 3, 4, undefined, undefined, 7, 8]);
    expect((lines[1]?.skill as { description?: string } | undefined)?.description).toBe('Build release notes from merged pull requests');

    // The outcomes are a full load's of the new text, the broken line's problem on its own line.
    const full = new StoreToolsCache(join(dir, 'full.sqlite'));
    await loadToolsJsonl(file, { cache: full });
    expect(lines.map((line) => line.outcome)).toEqual(outcomes(readToolsLines(full, key())));
    expect(lines[7]?.outcome).toEqual({ id: null, problems: [['bad-tools-line', expect.stringMatching(/^not valid JSON/), 'error']] });
    // The second line for id a, and the line that is not JSON, are what they were.
    expect(lines[4]?.outcome).toEqual({ id: 'a', problems: [] });
    expect(lines[5]?.outcome).toEqual(tableOutcome(table!, 4));
  });

  it("over random edits, moves, insertions and removals, parses exactly the lines the old text lacks and gives a full load's outcomes", async () => {
    const { random, fresh, edit } = randomTools(7, 400, 10);
    for (let round = 0; round < 40; round += 1) {
      const before = Array.from({ length: 200 + random(200) }, fresh);
      // Sometimes a final newline: the last line is then blank.
      if (random(3) === 0) before.push('');
      await writeFile(file, before.join('\n'));
      await loadToolsJsonl(file, { cache: tables });
      const table = readToolsLines(tables, key())!;
      const after = [...before];
      edit(after, 6);
      await writeFile(file, after.join('\n'));
      const parsed: number[] = [];
      const lines = diffed(
        table,
        diffToolsLines(table, readFileSync(file), (line, index) => {
          parsed.push(index);
          return parseToolsLine(line.trim(), index, context());
        }),
      );
      const known = new Set(before);
      expect(parsed).toEqual(after.flatMap((line, index) => (known.has(line) || line === '' ? [] : [index])));
      const full = new StoreToolsCache(join(dir, `full-${round}.sqlite`));
      await loadToolsJsonl(file, { cache: full });
      expect(lines.map((line) => line.outcome)).toEqual(outcomes(readToolsLines(full, key())));
      for (const [index, line] of lines.entries()) if (line.old !== undefined) expect(before[line.old]).toBe(after[index]);
    }
  });

  it('lines edited, swapped or added are diffed by the hashes, the old text not read; lines removed, by the text', async () => {
    const { random, fresh, edit } = randomTools(11, 900, 12);
    let reads = 0;
    const counting: ToolsCache = {
      readSkills: (k, stat) => tables.readSkills(k, stat),
      writeSkills: (k, stat, skills) => tables.writeSkills(k, stat, skills),
      writeLines: (k, lines) => tables.writeLines(k, lines),
      readLines: (k) => {
        const lines = tables.readLines(k);
        return (
          lines && {
            ...lines,
            text: () => {
              reads += 1;
              return typeof lines.text === 'function' ? lines.text() : lines.text;
            },
          }
        );
      },
    };
    for (let round = 0; round < 12; round += 1) {
      // More lines than one hashed block.
      const before = Array.from({ length: 300 + random(700) }, fresh);
      await writeFile(file, before.join('\n'));
      await loadToolsJsonl(file, { cache: tables });
      const table = readToolsLines(counting, key())!;
      const after = [...before];
      const inPlace = round % 3 !== 2;
      if (inPlace) {
        for (let op = 1 + random(5); op > 0; op -= 1) after[random(after.length)] = fresh();
        const [i, j] = [random(after.length), random(after.length)];
        [after[i], after[j]] = [after[j]!, after[i]!];
        if (round % 2 === 0) after.push(fresh(), before[random(before.length)]!);
      } else edit(after, 4);
      await writeFile(file, after.join('\n'));
      reads = 0;
      const parsed: number[] = [];
      const lines = diffed(
        table,
        diffToolsLines(table, readFileSync(file), (line, index) => {
          parsed.push(index);
          return parseToolsLine(line.trim(), index, context());
        }),
      );
      if (inPlace) expect(reads, `round ${round}`).toBe(0);
      const left = new Map<string, number>();
      for (const line of before) left.set(line, (left.get(line) ?? 0) + 1);
      // Parsed: the lines the old text lacks, as many times as it lacks them.
      const lacking = after.flatMap((line, index) => {
        const n = left.get(line) ?? 0;
        left.set(line, n - 1);
        return n > 0 || line === '' ? [] : [index];
      });
      expect(parsed.length).toBe(lacking.length);
      const full = new StoreToolsCache(join(dir, `in-place-${round}.sqlite`));
      await loadToolsJsonl(file, { cache: full });
      expect(lines.map((line) => line.outcome)).toEqual(outcomes(readToolsLines(full, key())));
      for (const [index, line] of lines.entries()) if (line.old !== undefined) expect(before[line.old]).toBe(after[index]);
    }
  });

  it('a line table of another file, or whose starts disagree with the file it was kept for, is not read; a text that disagrees with them, not used', async () => {
    await loadToolsJsonl(file, { cache: tables });
    expect(readToolsLines(tables, key())).toBeDefined();
    expect(readToolsLines(tables, { ...key(), path: join(dir, 'other.jsonl') })).toBeUndefined();
    expect(readToolsLines(tables, { ...key(), rank: 3 })).toBeUndefined();
    const store = SqliteStore.open(join(dir, 'store.sqlite'));
    try {
      store.database.prepare("UPDATE tools_lines SET text = text || CAST('\nan extra line' AS BLOB)").run();
      // An edit in place is told by the hashes; a line removed needs the text, which no longer fits the table.
      const table = readToolsLines(tables, key())!;
      const edited = [...OLD];
      edited[1] = tool('b', 'Build release notes, edited');
      await writeFile(file, edited.join('\n'));
      const parse = (line: string, index: number) => parseToolsLine(line.trim(), index, context());
      expect(diffToolsLines(table, readFileSync(file), parse)?.fresh.size).toBe(1);
      await writeFile(file, OLD.filter((_, index) => index !== 2).join('\n'));
      expect(diffToolsLines(table, readFileSync(file), parse)).toBeUndefined();
      store.database.prepare('UPDATE tools_lines SET starts = substr(starts, 1, length(starts) - 1)').run();
    } finally {
      store.close();
    }
    expect(readToolsLines(tables, key())).toBeUndefined();
  });

  it('is kept in the store, one row per file and settings, and no file beside it', async () => {
    await loadToolsJsonl(file, { cache: tables });
    await loadToolsJsonl(file, { cache: tables, rank: 3 });
    const store = SqliteStore.open(join(dir, 'store.sqlite'));
    try {
      expect(store.database.prepare('SELECT COUNT(*) FROM tools_lines').pluck().get()).toBe(2);
      // Rows no one used for the days `collect` is given go with it.
      store.collect(30);
      expect(store.database.prepare('SELECT COUNT(*) FROM tools_lines').pluck().get()).toBe(2);
      store.database.prepare('UPDATE tools_lines SET used = 0 WHERE key LIKE ?').run('%,3,%');
      store.collect(30);
      expect(store.database.prepare('SELECT COUNT(*) FROM tools_lines').pluck().get()).toBe(1);
    } finally {
      store.close();
    }
    expect(readdirSync(dir).filter((name) => !name.startsWith('store.sqlite'))).toEqual(['tools.jsonl']);
  });
});
