import { writeFileSync } from 'node:fs';
import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SkillCatalog } from '../../src/load/index.js';
import { loadToolsJsonl, writeToolsSnapshot } from '../../src/load/tools-jsonl.js';
import { toolsFileStat } from '../../src/load/tools-cache.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { StoreToolsCache } from '../../src/store/store-tools-cache.js';
import { DEFAULT_SKILL_LIMITS } from '../../src/load/skill.js';
import type { Skill } from '../../src/types.js';
import { removeDir, tempDir } from './helpers.js';

// Counted, to tell a snapshot deserialised from one told stale by its header.
vi.mock('node:v8', async (original) => {
  const actual = await original<typeof import('node:v8')>();
  return { ...actual, deserialize: vi.fn(actual.deserialize) };
});

const LINES = [
  JSON.stringify({ id: 'pdf', name: 'pdf-tables', description: 'Extract tables from PDF files' }),
  'not json',
  JSON.stringify({ id: 'csv', name: 'csv-clean', description: 'Clean CSV files', whenToUse: 'messy spreadsheets' }),
].join('\n');

describe('tools file snapshots', () => {
  let dir: string;
  let file: string;
  let snapshots: StoreToolsCache;
  let storeFile: string;
  beforeEach(async () => {
    dir = await tempDir();
    file = join(dir, 'tools.jsonl');
    storeFile = join(dir, 'store.sqlite');
    snapshots = new StoreToolsCache(storeFile);
    await writeFile(file, LINES);
  });
  afterEach(() => removeDir(dir));

  it('gives what parsing gives, and the second load reads the snapshot', async () => {
    const parsed = await loadToolsJsonl(file);
    const first = await loadToolsJsonl(file, { cache: snapshots });
    expect(first).toEqual(parsed);
    expect(snapshotRows(storeFile)).toBe(1);
    const second = await loadToolsJsonl(file, { cache: snapshots });
    expect(second).toEqual(parsed);
    expect(Object.isFrozen(second.skills[0])).toBe(true);
    expect(second.diagnostics[0]?.path).toBe(`${file}:2`);
  });

  it('is read only while the file keeps the stat it was taken at', async () => {
    const key = { path: file, source: 'skills' as const, rank: 5, limits: DEFAULT_SKILL_LIMITS };
    const planted = (await loadToolsJsonl(file)).skills.map((skill) => ({ ...skill, description: 'from the snapshot' }));
    writeToolsSnapshot(snapshots, key, toolsFileStat(file)!, { skills: planted, diagnostics: [] });
    expect((await loadToolsJsonl(file, { cache: snapshots })).skills[0]?.description).toBe('from the snapshot');
    // Same bytes, same size: only the times moved. The file is parsed again.
    await utimes(file, new Date(2020, 0, 1), new Date(2020, 0, 1));
    expect((await loadToolsJsonl(file, { cache: snapshots })).skills[0]?.description).toBe('Extract tables from PDF files');
  });

  it('a stale snapshot is told by its header: its skills are not deserialised', async () => {
    await loadToolsJsonl(file, { cache: snapshots });
    vi.mocked(deserialize).mockClear();
    expect((await loadToolsJsonl(file, { cache: snapshots })).skills).toHaveLength(2);
    expect(deserialize).toHaveBeenCalledTimes(1);
    await writeFile(file, `${LINES}\n${JSON.stringify({ id: 'zip', name: 'zip-files', description: 'Zip files' })}`);
    vi.mocked(deserialize).mockClear();
    expect((await loadToolsJsonl(file, { cache: snapshots })).skills).toHaveLength(3);
    expect(deserialize).not.toHaveBeenCalled();
  });

  it('a snapshot of the right stat whose skills have the wrong shape is not used', async () => {
    const key = { path: file, source: 'skills' as const, rank: 5, limits: DEFAULT_SKILL_LIMITS };
    const hostile = [null, { id: 'pdf', name: 7 }] as unknown as Skill[];
    writeToolsSnapshot(snapshots, key, toolsFileStat(file)!, { skills: hostile, diagnostics: [] });
    expect((await loadToolsJsonl(file, { cache: snapshots })).skills.map((skill) => skill.name)).toEqual(['pdf-tables', 'csv-clean']);
  });

  it('other limits or rank are another snapshot', async () => {
    await loadToolsJsonl(file, { cache: snapshots });
    const short = await loadToolsJsonl(file, { cache: snapshots, limits: { ...DEFAULT_SKILL_LIMITS, maxDescriptionChars: 5 } });
    expect(short.skills[0]?.description.length).toBeLessThanOrEqual(5);
    await loadToolsJsonl(file, { cache: snapshots, rank: 3 });
    expect(snapshotRows(storeFile)).toBe(3);
  });

  it('a damaged snapshot or an unwritable store costs a parse, nothing else', async () => {
    await loadToolsJsonl(file, { cache: snapshots });
    storeRun(storeFile, "UPDATE tools_skills SET skills = CAST('garbage' AS BLOB)");
    expect((await loadToolsJsonl(file, { cache: snapshots })).skills.map((skill) => skill.id)).toEqual(['pdf', 'csv']);
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, '');
    expect((await loadToolsJsonl(file, { cache: new StoreToolsCache(join(blocked, 'sub', 'store.sqlite')) })).skills).toHaveLength(2);
  });

  it('the catalog uses its toolsCache, and refuses one that is not a cache', async () => {
    expect(() => new SkillCatalog({ cwd: dir, toolsCache: join(dir, 'tools') as never })).toThrow(/toolsCache/);
    const catalog = new SkillCatalog({ cwd: dir, toolsFiles: [file], toolsCache: snapshots, claudePlugins: false, codexHome: null });
    try {
      expect((await catalog.get()).skills.map((skill) => skill.name).sort()).toEqual(['csv-clean', 'pdf-tables']);
    } finally {
      await catalog.close();
    }
    expect(snapshotRows(storeFile)).toBe(1);
  });
});

function storeRun(file: string, sql: string): unknown {
  const store = SqliteStore.open(file);
  try {
    const statement = store.database.prepare(sql);
    return statement.reader ? statement.pluck().get() : statement.run();
  } finally {
    store.close();
  }
}

/** The snapshots kept in the store at `file` (the line tables beside them are `tools-lines.ts`'s). */
function snapshotRows(file: string): unknown {
  return storeRun(file, 'SELECT COUNT(*) FROM tools_skills');
}
