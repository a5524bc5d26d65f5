import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_EVENTS, SkillCatalog, clearCatalogCache, getCatalog, type CatalogChange } from '../../src/load/catalog.js';
import { demoSkillsDir } from '../../src/load/default-dirs.js';
import { formatDiagnostic, formatShadowed, type CatalogOptions } from '../../src/load/index.js';
import type { CatalogWatchOptions } from '../../src/load/options.js';
import { statSkillsDir } from '../../src/load/scan.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

let root: string;
let options: CatalogOptions;

beforeEach(async () => {
  root = await tempDir();
  options = { cwd: join(root, 'project'), home: join(root, 'home'), bundledDir: null, managedDir: null };
  await writeTree(root, { 'project/.claude/skills/first/SKILL.md': skillMd('first skill') });
});
afterEach(async () => {
  await clearCatalogCache();
  await removeDir(root);
});

const names = (snapshot: { skills: readonly { name: string }[] }) => snapshot.skills.map((skill) => skill.name);

describe('SkillCatalog.get', () => {
  it('scans once: later calls return the cached snapshot even when files changed', async () => {
    const catalog = new SkillCatalog(options);
    const first = await catalog.get();
    await writeTree(root, { 'project/.claude/skills/second/SKILL.md': skillMd('second skill') });
    const again = await catalog.get();
    expect(again).toBe(first);
    expect(names(again)).toEqual(['first']);
  });

  it('concurrent callers share one scan', async () => {
    const catalog = new SkillCatalog(options);
    const [a, b] = [catalog.get(), catalog.get()];
    expect(a).toBe(b);
    expect(await a).toBe(await b);
  });

  it('clear() makes the next get() rescan; generation moves only when the content changed', async () => {
    const catalog = new SkillCatalog(options);
    const first = await catalog.get();
    expect(first.generation).toBe(1);

    catalog.clear();
    const unchanged = await catalog.get();
    expect(unchanged).not.toBe(first);
    expect(unchanged.generation).toBe(1);

    await writeTree(root, { 'project/.claude/skills/second/SKILL.md': skillMd('second skill') });
    catalog.clear();
    const added = await catalog.get();
    expect(names(added)).toEqual(['first', 'second']);
    expect(added.generation).toBe(2);

    await writeFile(join(root, 'project/.claude/skills/second/SKILL.md'), skillMd('second skill', {}, 'New body.'));
    catalog.clear();
    expect((await catalog.get()).generation).toBe(3);
  });

  it('a clear() during a scan gives a later snapshot a later generation', async () => {
    const catalog = new SkillCatalog(options);
    const during = catalog.get();
    await writeTree(root, { 'project/.claude/skills/second/SKILL.md': skillMd('second skill') });
    catalog.clear();
    const after = catalog.get();
    expect(after).not.toBe(during);
    const [a, b] = [await during, await after];
    expect(names(b)).toEqual(['first', 'second']);
    // Same generation must mean same content; different content, a later generation.
    if (a.generation === b.generation) expect(names(a)).toEqual(names(b));
    else expect(b.generation).toBeGreaterThan(a.generation);
    expect(await catalog.get()).toBe(b);
  });

  it('a failed scan is not cached', async () => {
    const tools = join(root, 'tools.jsonl');
    const catalog = new SkillCatalog({ ...options, toolsFiles: [tools] });
    await expect(catalog.get()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await writeFile(tools, '{"id":"t1","name":"t1","description":"a tool"}\n');
    expect(names(await catalog.get())).toEqual(['t1']);
  });

  it('a tools line whose id an earlier line has is reported shadowed, not lost; the same file named twice is one file', async () => {
    const tools = join(root, 'tools.jsonl');
    await writeFile(tools, '{"id":"t1","name":"weather","description":"the weather"}\n{"id":"t1","name":"flights","description":"flights"}\n');
    const snapshot = await new SkillCatalog({ ...options, toolsFiles: [tools, tools] }).get();
    expect(names(snapshot)).toEqual(['weather']);
    expect(snapshot.shadowed.map(formatShadowed)).toEqual([
      `skill-search: duplicate skill "flights": tools:${tools}#t1 is the id of two lines; the first is used`,
    ]);
  });

  it("serves the package's example skills with demo: 'always', including one for PDFs", async () => {
    const snapshot = await new SkillCatalog({ ...options, demo: 'always' }).get();
    expect(demoSkillsDir()).toBe(join(process.cwd(), 'examples', 'skills'));
    expect(snapshot.diagnostics).toEqual([]);
    const demo = snapshot.skills.filter((skill) => skill.source === 'demo');
    expect(demo.length).toBeGreaterThanOrEqual(8);
    const pdf = snapshot.skills.find((skill) => skill.name === 'pdf');
    expect(pdf).toMatchObject({ source: 'demo', rank: 11 });
    expect(pdf?.description).toMatch(/text.*tables/);
    expect(demo.every((skill) => skill.body.length > 500)).toBe(true);
  });
});

describe('MCP skills and plugins', () => {
  it('registers, replaces and unregisters MCP skills, emitting change each time', async () => {
    const catalog = new SkillCatalog(options);
    const changes: CatalogChange[] = [];
    catalog.on(CATALOG_EVENTS.change, (change) => changes.push(change));
    catalog.registerMcpSkills('docs', [
      { name: 'search-docs', description: 'Search the docs', whenToUse: 'when docs are needed', body: 'Use it.' },
      { name: 'bad\nname', description: 'rejected' },
      { name: 'first', description: 'loses to the project skill' },
    ]);
    const snapshot = await catalog.get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.source, skill.rank, skill.path])).toEqual([
      ['first', 'skills', 5, join(root, 'project/.claude/skills/first/SKILL.md')],
      ['search-docs', 'mcp', 8, 'mcp:docs/search-docs'],
    ]);
    expect(snapshot.skills[1]).toMatchObject({ body: 'Use it.', whenToUse: 'when docs are needed' });
    expect(snapshot.diagnostics.map((d) => [d.code, d.path])).toEqual([['bad-field', 'mcp:docs/bad\nname']]);
    expect(snapshot.shadowed.map((s) => s.loser.path)).toEqual(['mcp:docs/first']);

    catalog.registerMcpSkills('docs', [{ name: 'other', description: 'replaces the set' }]);
    expect(names(await catalog.get())).toEqual(['first', 'other']);
    expect(catalog.unregisterMcpServer('docs')).toBe(true);
    expect(catalog.unregisterMcpServer('docs')).toBe(false);
    expect(names(await catalog.get())).toEqual(['first']);
    expect(changes).toEqual([
      { reason: 'mcp', paths: ['mcp:docs'] },
      { reason: 'mcp', paths: ['mcp:docs'] },
      { reason: 'mcp', paths: ['mcp:docs'] },
    ]);
  });

  it('caps an MCP skill body like a file body', async () => {
    const catalog = new SkillCatalog({ ...options, maxBodyBytes: 10 });
    catalog.registerMcpSkills('big', [{ name: 'huge', description: 'huge body', body: 'z'.repeat(100) }]);
    const snapshot = await catalog.get();
    expect(snapshot.skills.find((skill) => skill.name === 'huge')?.body).toBe('z'.repeat(10));
    expect(snapshot.diagnostics).toEqual([
      { code: 'too-large', path: 'mcp:big/huge', message: 'body is larger than 10 bytes; cut to that size', severity: 'warning' },
    ]);
  });

  it('notifyPluginsChanged rescans with the new plugin roots', async () => {
    await writeTree(root, { 'plugin-a/skills/from-plugin/SKILL.md': skillMd('plugin skill') });
    const catalog = new SkillCatalog(options);
    expect(names(await catalog.get())).toEqual(['first']);
    catalog.notifyPluginsChanged({ pluginDirs: [join(root, 'plugin-a')] });
    const snapshot = await catalog.get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.source, skill.rank])).toEqual([
      ['first', 'skills', 5],
      ['from-plugin', 'plugin', 7],
    ]);
  });

  it('reconfigure takes the sources a config decides (and only those), emits a config change and rescans', async () => {
    await writeTree(root, { 'team/from-library/SKILL.md': skillMd('library skill') });
    const catalog = new SkillCatalog(options);
    const changes: CatalogChange[] = [];
    catalog.on(CATALOG_EVENTS.change, (change) => changes.push(change));
    expect(names(await catalog.get())).toEqual(['first']);
    // A command's whole options: the working folder given here is not taken.
    const whole: CatalogOptions = { ...options, cwd: join(root, 'elsewhere'), libraryDirs: [join(root, 'team')], exclude: ['first'] };
    catalog.reconfigure(whole);
    expect(changes).toEqual([{ reason: 'config', paths: [join(root, 'team')] }]);
    expect(catalog.cwd).toBe(join(root, 'project'));
    expect((await catalog.get()).skills.map((skill) => [skill.name, skill.source])).toEqual([['from-library', 'library']]);
    catalog.reconfigure({ libraryDirs: [] });
    expect(names(await catalog.get())).toEqual(['first']);
  });
});

describe('options', () => {
  it.each([
    [{ maxBodyBytes: 0 }, 'skill-search: Expected `maxBodyBytes` to be a positive integer, got `0`'],
    [{ addDirs: 'x' }, 'skill-search: Expected `addDirs` to be an array of paths, got `"x"`'],
    [{ watch: { coalesceMs: -1 } }, 'skill-search: Expected `watch.coalesceMs` to be a positive integer, got `-1`'],
    // Read before the other options once: Node's own TypeError came first.
    [{ cwd: 42 }, 'skill-search: Expected `cwd` to be a path, got `42`'],
  ])('rejects %j', (bad, message) => {
    expect(() => new SkillCatalog({ ...options, ...(bad as CatalogOptions) })).toThrow(message);
  });

  it('refuses options that are not an object with one line, before reading any of them', () => {
    expect(() => new SkillCatalog(null as unknown as CatalogOptions)).toThrow('skill-search: Expected options to be an object, got `null`');
  });

  it('refuses an option it does not have (a misspelling from plain JavaScript), naming it, the nearest and every option', () => {
    expect(() => new SkillCatalog({ ...options, skillDirs: [root] } as CatalogOptions)).toThrow(
      'skill-search: Expected an option of SkillCatalog, got `skillDirs` (did you mean `skillsDirs`?); its options: cwd, home, bundledDir, demo, demoDir, ' +
        'claudePlugins, codexHome, codexAdminDir, libraryDirs, defaultLibraryDir, include, exclude, managedDir, builtinPluginDirs, pluginDirs, addDirs, skillsDirs, ' +
        'toolsFiles, toolsCache, watch, maxBodyBytes, maxDescriptionChars, maxNameLength, maxHooksJsonChars',
    );
    expect(() => new SkillCatalog({ ...options, colour: 'red' } as CatalogOptions)).toThrow(
      /^skill-search: Expected an option of SkillCatalog, got `colour`; its options: cwd, /,
    );
  });

  it('refuses an unknown key of a nested options object by its full path, as at the top level', async () => {
    expect(() => new SkillCatalog({ ...options, watch: { coalesceMS: 100 } } as CatalogOptions)).toThrow(
      'skill-search: Expected an option of SkillCatalog, got `watch.coalesceMS` (did you mean `watch.coalesceMs`?); ' +
        'its options under `watch`: usePolling, pollInterval, stabilityThreshold, coalesceMs',
    );
    const catalog = new SkillCatalog(options);
    expect(() => catalog.watch({ pollIntervalMs: 50 } as CatalogWatchOptions)).toThrow(
      'skill-search: Expected an option of SkillCatalog.watch(), got `pollIntervalMs` (did you mean `pollInterval`?)',
    );
    await catalog.close();
  });

  it('resolves once and freezes', () => {
    const catalog = new SkillCatalog({ ...options, addDirs: ['rel'] });
    expect(catalog.options.addDirs).toEqual([join(root, 'project', 'rel')]);
    expect(Object.isFrozen(catalog.options)).toBe(true);
    expect(catalog.options.limits).toEqual({ maxBodyBytes: 1048576, maxDescriptionChars: 4096, maxNameLength: 128, maxHooksJsonChars: 65536 });
  });
});

describe('getCatalog', () => {
  it('returns one catalog per working directory until the cache is cleared', async () => {
    const { cwd, ...rest } = options;
    const a = getCatalog(cwd!, rest);
    expect(getCatalog(`${cwd!}/.`, rest)).toBe(a);
    expect(getCatalog(root, rest)).not.toBe(a);
    await clearCatalogCache();
    expect(getCatalog(cwd!, rest)).not.toBe(a);
  });
});

describe('skillsDirs the user named', () => {
  it('are each a one-line diagnostic when missing or not a folder; the others load, and the host folders that are absent stay silent', async () => {
    await writeTree(root, { 'named/pdf/SKILL.md': skillMd('Extract PDF tables'), 'a-file.md': skillMd('not a folder') });
    const [missing, file, named] = [join(root, 'missing'), join(root, 'a-file.md'), join(root, 'named')];
    const catalog = new SkillCatalog({ ...options, skillsDirs: [missing, file, named] });
    const snapshot = await catalog.get();
    expect(names(snapshot)).toEqual(['pdf']);
    expect(snapshot.diagnostics.map(formatDiagnostic)).toEqual([`skill-search: ${missing}: no such folder`, `skill-search: ${file}: is not a folder`]);
    expect(snapshot.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['unreadable', 'error'],
      ['unreadable', 'error'],
    ]);
    // The stat-only path (what a hook checks a saved catalog by) finds the same as the scan.
    const stamps = await catalog.stamps();
    expect(stamps.sourceStamp).toBe(snapshot.sourceStamp);
    const missingStamp = await statSkillsDir(missing, { required: true });
    expect([missingStamp.files, missingStamp.stats.length, missingStamp.diagnostics]).toEqual([[], 0, [snapshot.diagnostics[0]]]);
    // The default sources (home and project folders, none of them created here but one) say nothing.
    expect((await new SkillCatalog(options).get()).diagnostics).toEqual([]);
  });

  it('a named libraryDirs folder that is missing is the same one line; the default library, never created, stays silent until it appears', async () => {
    await writeTree(root, { 'library/pdf/SKILL.md': skillMd('Extract PDF tables') });
    const [missing, library, defaultLibrary] = [join(root, 'no-library'), join(root, 'library'), join(root, 'default-library')];
    const catalog = new SkillCatalog({ ...options, libraryDirs: [missing, library], defaultLibraryDir: defaultLibrary });
    const snapshot = await catalog.get();
    expect(names(snapshot)).toEqual(['first', 'pdf']);
    expect(snapshot.diagnostics.map(formatDiagnostic)).toEqual([`skill-search: ${missing}: no such folder`]);
    expect((await catalog.stamps()).sourceStamp).toBe(snapshot.sourceStamp);
    await writeTree(root, { 'default-library/docx/SKILL.md': skillMd('Edit Word documents') });
    catalog.clear();
    expect(names(await catalog.get())).toEqual(['first', 'docx', 'pdf']);
  });

  it("a `cwd` that does not exist is one line naming the option and the path; the home folder's skills still load", async () => {
    await writeTree(root, { 'home/.claude/skills/pdf/SKILL.md': skillMd('Extract PDF tables') });
    const missing = join(root, 'no-project');
    const catalog = new SkillCatalog({ ...options, cwd: missing });
    const snapshot = await catalog.get();
    expect(names(snapshot)).toEqual(['pdf']);
    expect(snapshot.diagnostics.map(formatDiagnostic)).toEqual([`skill-search: ${missing}: no such folder (the \`cwd\` option): no project skills were read`]);
    expect(snapshot.diagnostics.map((d) => [d.code, d.severity])).toEqual([['unreadable', 'error']]);
    expect((await catalog.stamps()).sourceStamp).toBe(snapshot.sourceStamp);
    // Made since: the next scan says nothing.
    await writeTree(root, { 'no-project/.claude/skills/first/SKILL.md': skillMd('first skill') });
    catalog.clear();
    const made = await catalog.get();
    expect([names(made), made.diagnostics]).toEqual([['pdf', 'first'], []]);
    // With skillsDirs, `cwd` plays no part: nothing is said of it.
    const override = await new SkillCatalog({ ...options, cwd: join(root, 'elsewhere'), skillsDirs: [join(root, 'home/.claude/skills')] }).get();
    expect([names(override), override.diagnostics]).toEqual([['pdf'], []]);
  });
});

describe('close', () => {
  it('is idempotent and returns the same promise', async () => {
    const catalog = new SkillCatalog(options);
    await catalog.watch();
    const closing = catalog.close();
    expect(catalog.close()).toBe(closing);
    await closing;
    await rm(join(root, 'project'), { recursive: true });
    await expect(catalog.watch()).rejects.toMatchObject({ code: 'CLOSED', message: 'skill-search: the catalog is closed' });
  });
});
