import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEvalSets, loadPool, sample, toSkill, toToolRecord } from '../../bench/corpus.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function fakeEvalDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-corpus-'));
  dirs.push(dir);
  const write = (file: string, rows: unknown[]): void => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  };
  write('metatool/tools.jsonl', [
    { id: 'Weather', name: 'Weather', description: 'Forecasts' },
    { id: 'Maps', name: 'Maps', description: 'Directions' },
  ]);
  write(
    'metatool/queries.jsonl',
    Array.from({ length: 30 }, (_, i) => ({ id: `q${i}`, query: `rain ${i}?`, relevant: ['Weather'] })),
  );
  write(
    'metatool/queries_no_tool.jsonl',
    Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, query: `hello ${i}`, relevant: [] })),
  );
  write('pools/skill-registry-metadata/tools.jsonl', [
    { id: 'a/r::pdf', name: 'pdf', description: 'PDF tools', tags: ['x'] },
    { id: 'b/r::pdf', name: 'pdf', description: null },
    { id: 'c/r::git', name: 'git', description: 'Git helper', when_to_use: 'when committing' },
  ]);
  return dir;
}

describe('corpus', () => {
  it('reads real sets when present and mixes in a tenth of no-tool queries', () => {
    const [metatool, ...rest] = loadEvalSets(fakeEvalDir(), 20);
    expect(rest).toEqual([]);
    expect(metatool!.origin).toBe('real');
    expect(metatool!.skills.map((s) => s.id)).toEqual(['Weather', 'Maps']);
    expect(metatool!.queries).toHaveLength(20);
    expect(metatool!.queries.filter((q) => q.relevant.length === 0)).toHaveLength(2);
    expect(metatool!.totalQueries).toBe(60);
  });

  it('falls back to a labelled synthetic set without ../shared/eval', () => {
    const [set] = loadEvalSets(null, 25);
    expect(set!.name).toBe('synthetic-2k');
    expect(set!.origin).toBe('synthetic');
    expect(set!.skills).toHaveLength(2000);
    expect(set!.queries).toHaveLength(25);
    expect(loadPool('/nonexistent', 40)).toMatchObject({ origin: 'synthetic' });
    expect(loadPool('/nonexistent', 40).skills).toHaveLength(40);
  });

  it('turns pool lines into skills keyed by id, coercing a null description', () => {
    const pool = loadPool(fakeEvalDir(), 10);
    expect(pool.origin).toBe('real');
    expect(pool.skills.map((s) => [s.id, s.name, s.description, s.whenToUse])).toEqual([
      ['a/r::pdf', 'pdf', 'PDF tools', undefined],
      ['b/r::pdf', 'pdf', '', undefined],
      ['c/r::git', 'git', 'Git helper', 'when committing'],
    ]);
  });

  it('hashes the indexed text exactly as Skill.contentHash is defined', () => {
    const skill = toSkill(toToolRecord({ id: 'x', name: 'pdf', description: 'Read PDFs' }), 'test');
    expect(skill.contentHash).toBe(createHash('sha256').update('pdf\nRead PDFs\n').digest('hex'));
    expect(skill.path).toBe('tools:test#x');
  });

  it('samples deterministically and keeps source order', () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    const picked = sample(items, 10);
    expect(picked).toEqual(sample(items, 10));
    expect(picked).toEqual([...picked].sort((a, b) => a - b));
    expect(sample(items.slice(0, 5), 10)).toEqual([0, 1, 2, 3, 4]);
  });
});
