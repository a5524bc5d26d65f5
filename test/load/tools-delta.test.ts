import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillCatalog } from '../../src/load/index.js';
import type { CatalogOptions } from '../../src/load/options.js';
import { StoreToolsCache } from '../../src/store/store-tools-cache.js';
import { toolsCacheKey } from '../../src/load/tools-cache.js';
import { writeToolsLines } from '../../src/load/tools-lines.js';
import type { Skill } from '../../src/types.js';
import { randomTools, removeDir, tempDir, writeTree } from './helpers.js';

const tool = (id: string, description: string): string => JSON.stringify({ id, name: id, description });

const BEFORE = [
  tool('a', 'Archive old log files'),
  tool('b', 'Build release notes'),
  tool('c', 'Compress images'),
  tool('a', 'A second line for id a'),
  tool('d', 'Deploy the staging site'),
  tool('e', 'Export invoices'),
];

/** `b` edited, the first `a` removed (its second line now wins the id), `d` moved up, `g` and a broken line added. */
const AFTER = [
  '{"id": "h", "description": ',
  tool('d', 'Deploy the staging site'),
  tool('b', 'Build release notes from merged pull requests'),
  tool('c', 'Compress images'),
  tool('a', 'A second line for id a'),
  tool('e', 'Export invoices'),
  tool('g', 'Generate changelogs'),
];

describe('a catalog of tools files as a change of the one they were last loaded into', () => {
  let dir: string;
  let options: CatalogOptions;
  beforeEach(async () => {
    dir = await tempDir();
    await mkdir(join(dir, 'home'));
    await writeFile(join(dir, 'tools.jsonl'), BEFORE.join('\n'));
    options = {
      cwd: dir,
      home: join(dir, 'home'),
      toolsFiles: [join(dir, 'tools.jsonl')],
      toolsCache: new StoreToolsCache(join(dir, 'store.sqlite')),
      demo: 'never',
      claudePlugins: false,
      watch: false,
    };
  });
  afterEach(() => removeDir(dir));

  it('names the base by its stamps, keeps unchanged skills by their document there, and gives the changed ones and every problem as a full load does', async () => {
    const first = new SkillCatalog(options);
    const before = await first.get();
    const baseStamps = await first.stamps();
    await writeFile(join(dir, 'tools.jsonl'), AFTER.join('\n'));

    const delta = await new SkillCatalog(options).delta();
    const loaded = new SkillCatalog(options);
    const after = await loaded.get();
    expect(delta?.base).toEqual(baseStamps);
    expect({ sourceStamp: delta?.sourceStamp, portableStamp: delta?.portableStamp }).toEqual(await loaded.stamps());
    expect(delta?.diagnostics).toEqual(after.diagnostics);
    expect(after.diagnostics.map((d) => d.path)).toEqual([`${join(dir, 'tools.jsonl')}:1`]);

    // Members in the full load's order: the base's document where the base holds that very skill, else the skill.
    expect(delta?.baseIds).toEqual(before.skills.map((skill) => skill.id));
    const idOf = (member: number | Skill): string => (typeof member === 'number' ? delta!.baseIds[member]! : member.id);
    expect(delta?.members.map(idOf)).toEqual(after.skills.map((skill) => skill.id));
    expect(delta?.members.map((member) => (typeof member === 'number' ? member : `new ${member.id}`))).toEqual([3, 'new b', 2, 'new a', 4, 'new g']);
    for (const member of delta!.members) {
      const skill = after.skills.find((s) => s.id === idOf(member));
      if (typeof member === 'number') expect(skill).toEqual(before.skills[member]);
      else expect(member).toEqual(skill);
    }
  });

  it("over two tools files, an id the first file no longer has is won by the second file's line", async () => {
    const second = join(dir, 'more.jsonl');
    await writeFile(second, [tool('b', 'B from the second file'), tool('z', 'Zip the reports')].join('\n'));
    const both = { ...options, toolsFiles: [...options.toolsFiles!, second] };
    const before = await new SkillCatalog(both).get();
    expect(before.skills.map((skill) => skill.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'z']);
    await writeFile(join(dir, 'tools.jsonl'), BEFORE.filter((line) => !line.includes('"b"')).join('\n'));

    const delta = await new SkillCatalog(both).delta();
    const after = await new SkillCatalog(both).get();
    expect(delta?.baseIds).toEqual(['a', 'b', 'c', 'd', 'e', 'z']);
    expect(delta?.members.map((member) => (typeof member === 'number' ? member : `new ${member.description}`))).toEqual([
      0,
      2,
      3,
      4,
      'new B from the second file',
      5,
    ]);
    expect(delta?.members.filter((member) => typeof member !== 'number')).toEqual([after.skills[4]]);
    expect(delta?.diagnostics).toEqual(after.diagnostics);
  });

  it('over random edits, moves, insertions and removals with repeated ids, gives the members and problems of a full load', async () => {
    const { random, fresh, edit } = randomTools(11, 80, 12);
    const file = join(dir, 'tools.jsonl');
    for (let round = 0; round < 25; round += 1) {
      const lines = Array.from({ length: 100 + random(100) }, fresh);
      await writeFile(file, lines.join('\n'));
      const before = await new SkillCatalog(options).get();
      edit(lines, 5);
      await writeFile(file, lines.join('\n'));
      const delta = await new SkillCatalog(options).delta();
      const after = await new SkillCatalog(options).get();
      expect(delta?.baseIds).toEqual(before.skills.map((skill) => skill.id));
      expect(delta?.members.map((member) => (typeof member === 'number' ? before.skills[member] : member))).toEqual(after.skills);
      expect(delta?.diagnostics).toEqual(after.diagnostics);
      // The table the delta keeps (hashes taken from the old table where a line is an old one) is the one a full load keeps.
      const kept = new StoreToolsCache(join(dir, `kept-${round}.sqlite`));
      for (const { key, table } of delta!.tables()) writeToolsLines(kept, key, table);
      const key = toolsCacheKey(delta!.tables()[0]!.key);
      const { text: _keptText, ...keptTable } = kept.readLines(key)!;
      const { text: _fullText, ...fullTable } = (options.toolsCache as StoreToolsCache).readLines(key)!;
      expect(keptTable).toEqual(fullTable);
      kept.close();
    }
  });

  it('edits in place that take an id a kept line has, or a new one, or give one up, give the members of a full load', async () => {
    const file = join(dir, 'tools.jsonl');
    const lines = Array.from({ length: 40 }, (_, index) => tool(`t${index}`, `Tool number ${index}`));
    for (const edited of [
      { 3: tool('t30', 'Now a second t30, which loses it to the line after'), 35: tool('t5', 'Now a t5 after the first') },
      { 7: tool('new', 'An id no line had'), 8: tool('t9', 'An id taken from the line after') },
      { 0: tool('t0', 'Only its description changed'), 12: '{"id": "broken", ' },
    ]) {
      await writeFile(file, lines.join('\n'));
      const before = await new SkillCatalog(options).get();
      await writeFile(file, lines.map((line, index) => edited[index as keyof typeof edited] ?? line).join('\n'));
      const delta = await new SkillCatalog(options).delta();
      const after = await new SkillCatalog(options).get();
      expect(delta?.baseIds).toEqual(before.skills.map((skill) => skill.id));
      expect(delta?.members.map((member) => (typeof member === 'number' ? before.skills[member] : member))).toEqual(after.skills);
      expect(delta?.diagnostics).toEqual(after.diagnostics);
    }
  });

  it('is undefined when no tools file changed, when one has no line table, or when a skill folder holds a skill', async () => {
    await new SkillCatalog(options).get();
    expect(await new SkillCatalog(options).delta()).toBeUndefined();
    await writeFile(join(dir, 'tools.jsonl'), AFTER.join('\n'));
    expect(await new SkillCatalog({ ...options, toolsCache: new StoreToolsCache(join(dir, 'elsewhere.sqlite')) }).delta()).toBeUndefined();
    await writeTree(dir, { 'own/tidy/SKILL.md': '---\ndescription: A skill of a folder named beside the tools file\n---\nBody.\n' });
    expect(await new SkillCatalog({ ...options, skillsDirs: [join(dir, 'own')] }).delta()).toBeUndefined();
    expect(await new SkillCatalog(options).delta()).toBeDefined();
  });
});
