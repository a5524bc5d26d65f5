import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SkillCatalog, type CatalogOptions } from '../../src/load/index.js';
import { ScanMemo, scanSkillsDir } from '../../src/load/scan.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { StoreToolsCache } from '../../src/store/store-tools-cache.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

// Counted, not changed: every call goes through to the real module.
const reads = vi.hoisted(() => [] as string[]);
vi.mock('../../src/load/read-file.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/load/read-file.js')>();
  return {
    ...actual,
    readSkillText: (path: string, max: number) => {
      // Codex's policy file beside each SKILL.md is read through here too: count skill files only.
      if (path.endsWith('.md')) reads.push(path);
      return actual.readSkillText(path, max);
    },
  };
});

let root: string;
let skills: string;
let storeFile: string;
beforeEach(async () => {
  root = await tempDir();
  skills = join(root, 'skills');
  storeFile = join(root, 'cache', 'store.sqlite');
  reads.length = 0;
});
afterEach(async () => {
  await removeDir(root);
});

/** Sets `files`' mtime a minute back: a file modified within RACY_MS of a scan is never memoized. */
async function settle(files: readonly string[]): Promise<void> {
  const earlier = new Date(Date.now() - 60_000);
  for (const file of files) await utimes(file, earlier, earlier).catch(() => undefined);
}

/** A scan of `skills` as a new process makes it: a new memo over the store's cache, closed after (which writes a changed memo). */
async function scanInNewProcess(dir = skills, cacheOptions: { deferred?: boolean } = {}) {
  const cache = new StoreToolsCache(storeFile, cacheOptions);
  const memo = new ScanMemo({ cache, key: dir });
  try {
    const result = await scanSkillsDir(dir, { source: 'skills', rank: 3, folderNames: true, memo });
    return { result, last: memo.last };
  } finally {
    cache.close();
  }
}

const names = (count: number) => Array.from({ length: count }, (_, i) => `skill-${String(i).padStart(2, '0')}`);

describe('a scan memo kept in the store', () => {
  it('lets a new process read only the one SKILL.md that changed since the last scan', async () => {
    await writeTree(skills, Object.fromEntries(names(20).map((name) => [`${name}/SKILL.md`, skillMd(`${name} does one thing`)])));
    await settle(names(20).map((name) => join(skills, name, 'SKILL.md')));
    expect((await scanInNewProcess()).last).toEqual({ reused: 0, read: 20 });

    const edited = join(skills, 'skill-07', 'SKILL.md');
    await writeFile(edited, skillMd('skill-07 does another thing'));
    await settle([edited]);
    reads.length = 0;
    const { result, last } = await scanInNewProcess();
    expect(reads).toEqual([edited]);
    expect(last).toEqual({ reused: 19, read: 1 });
    expect(result.skills.find((skill) => skill.name === 'skill-07')?.description).toBe('skill-07 does another thing');
    expect(result).toEqual(await scanSkillsDir(skills, { source: 'skills', rank: 3, folderNames: true }));
  });

  it('over several pieces of the stamp, reads only the files whose stat moved, wherever they fall and whatever shifts the pieces', async () => {
    const many = Array.from({ length: 2_100 }, (_, i) => `skill-${String(i).padStart(4, '0')}`);
    const fileOf = (name: string) => join(skills, name, 'SKILL.md');
    await writeTree(skills, Object.fromEntries(many.map((name) => [`${name}/SKILL.md`, skillMd(`${name} does one thing`)])));
    await settle(many.map(fileOf));
    expect((await scanInNewProcess()).last).toEqual({ reused: 0, read: 2_100 });
    const fresh = () => scanSkillsDir(skills, { source: 'skills', rank: 3, folderNames: true });

    // One file in the second piece edited, a policy file added in the first: each SKILL.md read once, nothing else.
    const edited = fileOf(many[1_500]!);
    await writeFile(edited, skillMd('skill-1500 does another thing'));
    await mkdir(join(skills, many[10]!, 'agents'));
    await writeFile(join(skills, many[10]!, 'agents', 'openai.yaml'), 'policy:\n  allow_implicit_invocation: false\n');
    await settle([edited, join(skills, many[10]!, 'agents', 'openai.yaml')]);
    reads.length = 0;
    let scanned = await scanInNewProcess();
    expect(reads.sort()).toEqual([fileOf(many[10]!), edited]);
    expect(scanned.result).toEqual(await fresh());
    expect(scanned.result.skills.find((skill) => skill.name === many[10])?.invocation?.model).toBe(false);

    // A folder removed from the first piece moves every later file to another piece: still nothing else read.
    await rm(join(skills, many[3]!), { recursive: true });
    reads.length = 0;
    scanned = await scanInNewProcess();
    expect(reads).toEqual([]);
    expect(scanned.last).toEqual({ reused: 2_099, read: 0 });
    expect(scanned.result).toEqual(await fresh());

    // Nothing moved: every entry taken.
    reads.length = 0;
    expect((await scanInNewProcess()).last).toEqual({ reused: 2_099, read: 0 });
    expect(reads).toEqual([]);
  });

  it('is not written by a cold search (a deferred cache): the hook leaves it to its writer', async () => {
    await writeTree(skills, { 'alpha/SKILL.md': skillMd('alpha skill') });
    await settle([join(skills, 'alpha', 'SKILL.md')]);
    await scanInNewProcess(skills, { deferred: true });
    expect((await scanInNewProcess()).last).toEqual({ reused: 0, read: 1 });
    expect((await scanInNewProcess()).last).toEqual({ reused: 1, read: 0 });
  });

  it('ignores a kept memo it cannot read or that is not of its shape, and reads every file', async () => {
    await writeTree(skills, Object.fromEntries(names(3).map((name) => [`${name}/SKILL.md`, skillMd(`${name} skill`)])));
    await settle(names(3).map((name) => join(skills, name, 'SKILL.md')));
    const fresh = await scanSkillsDir(skills, { source: 'skills', rank: 3, folderNames: true });
    await scanInNewProcess();
    const store = SqliteStore.open(storeFile);
    // The memo's pieces and the one piece of its entries: each broken alone.
    const keys = store.database.prepare<[], string>('SELECT key FROM tools_skills').pluck().all();
    expect(keys).toHaveLength(2);
    const { serialize } = await import('node:v8');
    const skill = fresh.skills[0]!;
    const broken = [
      Buffer.from('not a v8 value'),
      serialize({ entries: [] }),
      // A row of an older shape (four fields), and a skill missing its hash.
      serialize([[skill.path, 'key', skill, []]]),
      serialize([[skill.path, 'key', { ...skill, contentHash: undefined }, [], true]]),
    ];
    try {
      for (const key of keys) {
        const kept = store.database.prepare<[string], Buffer>('SELECT skills FROM tools_skills WHERE key = ?').pluck().get(key)!;
        for (const blob of broken) {
          store.database.prepare('UPDATE tools_skills SET skills = ? WHERE key = ?').run(blob, key);
          const { result, last } = await scanInNewProcess();
          expect(last).toEqual({ reused: 0, read: 3 });
          expect(result).toEqual(fresh);
          store.database.prepare('UPDATE tools_skills SET skills = ? WHERE key = ?').run(kept, key);
        }
      }
    } finally {
      store.close();
    }
  });
});

/** A small seeded generator (mulberry32), so a failing sequence can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('a catalog read through a kept scan memo', () => {
  it('equals a catalog read without one after edits, renames, deletes, adds, shadowing, policy files and moved links', async () => {
    const project = join(root, 'project');
    const home = join(root, 'home');
    const outside = join(root, 'outside');
    const user = join(home, '.claude', 'skills');
    const own = join(project, '.claude', 'skills');
    await mkdir(outside, { recursive: true });
    const base: CatalogOptions = { cwd: project, home, bundledDir: null, managedDir: null, claudePlugins: false };
    const next = random(28);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const folders = [user, own];
    const pool = names(6);
    let made = 0;
    const touched: string[] = [];
    const write = async (file: string, text: string) => {
      await writeTree(join(file, '..'), { [file.split('/').at(-1)!]: text });
      touched.push(file);
    };
    for (const name of pool) await write(join(pick(folders), name, 'SKILL.md'), skillMd(`${name} first`));
    await write(join(user, 'notes.md'), skillMd('loose notes'));
    await write(join(outside, 'linked', 'SKILL.md'), skillMd('reached through a link'));
    await symlink(join(outside, 'linked'), join(user, 'linked'));

    const operations: (() => Promise<void>)[] = [
      // An edit of a folder's SKILL.md (now and then a broken one).
      async () => {
        const name = pick(pool);
        const folder = pick(folders);
        const text = next() < 0.2 ? '---\nname: [unclosed\n---\nBody.' : skillMd(`${name} revised ${made++}`);
        await write(join(folder, name, 'SKILL.md'), text);
      },
      // A new folder, maybe shadowing a name the other folder has.
      async () => write(join(pick(folders), pick([...pool, `new-${made++}`]), 'SKILL.md'), skillMd(`added ${made}`)),
      async () => rm(join(pick(folders), pick(pool)), { recursive: true, force: true }),
      async () => {
        const folder = pick(folders);
        const from = pick(pool);
        await rename(join(folder, from), join(folder, `${from}-moved`)).catch(() => undefined);
        pool.push(`${from}-moved`);
      },
      // Codex's policy file beside a SKILL.md: added, broken or removed.
      async () => {
        const policy = join(pick(folders), pick(pool), 'agents', 'openai.yaml');
        const choice = next();
        if (choice < 0.4) await write(policy, 'policy:\n  allow_implicit_invocation: false\n');
        else if (choice < 0.6) await write(policy, 'policy: [broken\n');
        else await rm(policy, { force: true });
      },
      // The linked folder's target moved and the link made again: its files' stats unchanged, their realpath not.
      async () => {
        const target = join(outside, `linked-${made++}`);
        await rm(join(user, 'linked'), { force: true });
        const current = readdirSync(outside).find((name) => name.startsWith('linked'))!;
        await rename(join(outside, current), target);
        await symlink(target, join(user, 'linked'));
        touched.push(join(target, 'SKILL.md'));
      },
    ];

    const catalogWith = async (toolsCache: StoreToolsCache | null) => {
      const catalog = new SkillCatalog({ ...base, toolsCache });
      try {
        const { skills: found, shadowed, diagnostics, sourceStamp } = await catalog.get();
        return { skills: found, shadowed, diagnostics, sourceStamp };
      } finally {
        await catalog.close();
      }
    };
    for (let step = 0; step < 25; step++) {
      for (let count = 1 + Math.floor(next() * 3); count > 0; count--) await pick(operations)();
      await settle(touched.splice(0));
      const cache = new StoreToolsCache(storeFile);
      const memoized = await catalogWith(cache);
      cache.close();
      expect(memoized, `step ${step}`).toEqual(await catalogWith(null));
    }
    // The memo was used: a last read in a new process with nothing changed reads no SKILL.md (it tries those of folders without one).
    reads.length = 0;
    const cache = new StoreToolsCache(storeFile);
    await catalogWith(cache);
    cache.close();
    expect(reads.filter((file) => existsSync(file))).toEqual([]);
  });
});

describe('a catalog scan after stamps()', () => {
  it('reads by the stats stamps() took, whose stamp it returns, and stats again once cleared', async () => {
    const home = join(root, 'home');
    const user = join(home, '.claude', 'skills');
    await writeTree(user, { 'alpha/SKILL.md': skillMd('alpha skill'), 'beta/SKILL.md': skillMd('beta skill') });
    const catalog = new SkillCatalog({ cwd: join(root, 'project'), home, bundledDir: null, managedDir: null, claudePlugins: false, toolsCache: null });
    try {
      const stamps = await catalog.stamps();
      // Written after the stamp: this scan reads by the stamp, so its catalog is the stamp's and the next stamp tells it is old.
      await writeTree(user, { 'gamma/SKILL.md': skillMd('gamma skill') });
      const first = await catalog.get();
      expect(first.sourceStamp).toBe(stamps.sourceStamp);
      expect(first.skills.map((skill) => skill.name)).toEqual(['alpha', 'beta']);
      catalog.clear();
      const second = await catalog.get();
      expect(second.skills.map((skill) => skill.name)).toEqual(['alpha', 'beta', 'gamma']);
      expect(second.sourceStamp).toBe(await catalog.sourceStamp());
      expect(second.sourceStamp).not.toBe(stamps.sourceStamp);
    } finally {
      await catalog.close();
    }
  });
});

describe('a writer settling files it found just written', () => {
  it('reads them again once they are older than RACY_MS, so the kept memo reuses them in the next process', async () => {
    const home = join(root, 'home');
    const user = join(home, '.claude', 'skills');
    // Copied in and indexed at once: every file is younger than RACY_MS at the first scan.
    await writeTree(user, Object.fromEntries(names(4).map((name) => [`${name}/SKILL.md`, skillMd(`${name} does one thing`)])));
    const options: CatalogOptions = { cwd: join(root, 'project'), home, bundledDir: null, managedDir: null, claudePlugins: false };
    const inNewProcess = async (whenDone: (catalog: SkillCatalog) => Promise<void>) => {
      const toolsCache = new StoreToolsCache(storeFile);
      const catalog = new SkillCatalog({ ...options, toolsCache });
      try {
        const snapshot = await catalog.get();
        await whenDone(catalog);
        return snapshot;
      } finally {
        await catalog.close();
        toolsCache.close();
      }
    };
    const files = names(4).map((name) => join(user, name, 'SKILL.md'));
    const clock = vi.spyOn(Date, 'now');
    try {
      const first = await inNewProcess(async (catalog) => {
        // Too soon: nothing is read again.
        reads.length = 0;
        await catalog.settle();
        expect(reads).toEqual([]);
        // Later (the clock moved on past RACY_MS): each is read once more, and its entry kept for reuse.
        clock.mockReturnValue(Date.now() + 2_500);
        await catalog.settle();
        expect(reads.sort()).toEqual(files);
      });
      reads.length = 0;
      const second = await inNewProcess(async () => undefined);
      expect(reads).toEqual([]);
      expect(second.skills).toEqual(first.skills);
      expect(second.sourceStamp).toBe(first.sourceStamp);
    } finally {
      clock.mockRestore();
    }
  });

  it('leaves a memo without such files as it is: settle() reads nothing', async () => {
    const home = join(root, 'home');
    const user = join(home, '.claude', 'skills');
    await writeTree(user, { 'alpha/SKILL.md': skillMd('alpha skill') });
    await settle([join(user, 'alpha', 'SKILL.md')]);
    const toolsCache = new StoreToolsCache(storeFile);
    const catalog = new SkillCatalog({ cwd: join(root, 'project'), home, bundledDir: null, managedDir: null, claudePlugins: false, toolsCache });
    try {
      await catalog.get();
      reads.length = 0;
      await catalog.settle();
      expect(reads).toEqual([]);
    } finally {
      await catalog.close();
      toolsCache.close();
    }
  });
});

describe('edits in place told without a scan (folderEdits)', () => {
  it('reads only the edited files, from the moved pieces, and names the stamps the catalog had; a folder come, gone or renamed is left to a scan', async () => {
    const home = join(root, 'home');
    const user = join(home, '.claude', 'skills');
    const many = Array.from({ length: 2_100 }, (_, i) => `skill-${String(i).padStart(4, '0')}`);
    const fileOf = (name: string) => join(user, name, 'SKILL.md');
    await writeTree(user, Object.fromEntries(many.map((name) => [`${name}/SKILL.md`, skillMd(`${name} does one thing`)])));
    await mkdir(join(user, 'empty-folder'));
    await settle(many.map(fileOf));
    const options: CatalogOptions = { cwd: join(root, 'project'), home, bundledDir: null, managedDir: null, claudePlugins: false, demo: 'never' };
    const inNewProcess = async <T>(use: (catalog: SkillCatalog) => Promise<T>): Promise<T> => {
      const toolsCache = new StoreToolsCache(storeFile);
      const catalog = new SkillCatalog({ ...options, toolsCache });
      try {
        return await use(catalog);
      } finally {
        await catalog.close();
        toolsCache.close();
      }
    };
    const saved = await inNewProcess((catalog) => catalog.get());
    const edited = [fileOf(many[5]!), fileOf(many[1_500]!)];
    await writeFile(edited[0]!, skillMd('the fifth, revised'));
    await writeFile(edited[1]!, skillMd('the 1500th, revised'));
    await settle(edited);
    reads.length = 0;
    const edits = await inNewProcess(async (catalog) => ({ edits: await catalog.folderEdits(), stamps: await catalog.stamps() }));
    expect(reads.sort()).toEqual(edited.sort());
    expect(edits.edits?.edited.map((skill) => skill.description).sort()).toEqual(['the 1500th, revised', 'the fifth, revised']);
    expect(edits.edits?.base).toEqual({ sourceStamp: saved.sourceStamp, portableStamp: saved.portableStamp });
    expect(edits.edits?.sourceStamp).toBe(edits.stamps.sourceStamp);

    // Codex's policy file put beside a SKILL.md: an edit of that skill (its invocation rule).
    await writeTree(join(user, many[700]!, 'agents'), { 'openai.yaml': 'policy:\n  allow_implicit_invocation: false\n' });
    await settle([join(user, many[700]!, 'agents', 'openai.yaml')]);
    const policy = await inNewProcess((catalog) => catalog.folderEdits());
    // No writer kept the memo since: the two edits before are still told with it.
    expect(policy?.edited.map((skill) => [skill.name, skill.invocation?.model ?? true])).toEqual([
      [many[5], true],
      [many[700], false],
      [many[1_500], true],
    ]);

    // A SKILL.md put in a folder that had none, a folder renamed, a folder removed: only a scan tells.
    const unchanged = async () => inNewProcess((catalog) => catalog.folderEdits());
    await writeTree(join(user, 'empty-folder'), { 'SKILL.md': skillMd('now a skill') });
    expect(await unchanged()).toBeUndefined();
    await rm(join(user, 'empty-folder', 'SKILL.md'));
    // As many folders as the memo's, one at another path.
    await rename(join(user, many[9]!), join(user, `${many[9]!}-renamed`));
    expect(await unchanged()).toBeUndefined();
    await rm(join(user, many[12]!), { recursive: true });
    expect(await unchanged()).toBeUndefined();
  });
});
