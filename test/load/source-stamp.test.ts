import { copyFileSync, cpSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillCatalog } from '../../src/load/catalog.js';
import { SKILLS, TOOLS, copyFixture, removeDir, tempDir } from '../cli/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

/** A copied skills folder and tools file, and a fresh catalog over them each time it is called. */
function setup(): { skills: string; tools: string; catalog: () => SkillCatalog } {
  const skills = copyFixture(SKILLS);
  const scratch = tempDir();
  const tools = path.join(scratch, 'tools.jsonl');
  copyFileSync(TOOLS, tools);
  dirs.push(skills, scratch);
  return { skills, tools, catalog: () => new SkillCatalog({ skillsDirs: [skills], toolsFiles: [tools], cwd: scratch, home: scratch }) };
}

/** The stamp a scan records, and the one computed without reading (they must agree). */
async function stamps(catalog: SkillCatalog): Promise<[string | undefined, string | undefined]> {
  const scanned = (await catalog.get()).sourceStamp;
  return [scanned, await catalog.sourceStamp()];
}

describe('source stamp', () => {
  it('is the same computed by a scan and by stats alone, and the same for two catalogs over unchanged files', async () => {
    const { catalog } = setup();
    const [scanned, stated] = await stamps(catalog());
    expect(scanned).toMatch(/^[0-9a-f]{64}$/);
    expect(stated).toBe(scanned);
    expect(await catalog().sourceStamp()).toBe(scanned);
  });

  it("follows a project's legacy commands folder (nested, any depth) the same way", async () => {
    const project = tempDir();
    dirs.push(project);
    const commands = path.join(project, '.claude', 'commands');
    mkdirSync(path.join(commands, 'git'), { recursive: true });
    writeFileSync(path.join(commands, 'deploy.md'), '---\ndescription: Deploy the site\n---\n');
    writeFileSync(path.join(commands, 'git', 'bisect.md'), '---\ndescription: Find the commit that broke it\n---\n');
    const catalog = () => new SkillCatalog({ cwd: project, home: project });
    const [scanned, stated] = await stamps(catalog());
    expect((await catalog().get()).skills.map((skill) => skill.name).sort()).toEqual(['deploy', 'git:bisect']);
    expect(stated).toBe(scanned);
    writeFileSync(path.join(commands, 'git', 'bisect.md'), '---\ndescription: Find the commit that broke the build\n---\n');
    const [edited, editedStated] = await stamps(catalog());
    expect(editedStated).toBe(edited);
    expect(edited).not.toBe(scanned);
  });

  it("is one for demo 'auto' and 'never' over the same skills, whoever reads them; the demo catalogue's own when auto adds it", async () => {
    const { skills, tools } = setup();
    const project = tempDir();
    const home = tempDir();
    dirs.push(project, home);
    const demoCatalog = (demo: 'auto' | 'never' | 'always', options: { skillsDirs?: string[]; toolsFiles?: string[] } = {}) =>
      new SkillCatalog({ ...options, demo, cwd: project, home });
    /** The stamps a scan saves under, and the stat-only ones a reader looks them up by, for each mode. */
    const stampsOf = (options: { skillsDirs?: string[]; toolsFiles?: string[] } = {}) =>
      Promise.all(
        (['auto', 'never'] as const).map(async (demo) => {
          const scanned = await demoCatalog(demo, options).get();
          return { scanned: scanned.portableStamp, stated: await demoCatalog(demo, options).stamps(), skills: scanned.skills.length };
        }),
      );
    // `skill-search index` (auto) and the hook (never) over the same --tools / --skills-dir.
    const [autoTools, neverTools] = await stampsOf({ toolsFiles: [tools] });
    expect(autoTools!.scanned).toMatch(/^[0-9a-f]{64}$/);
    expect(autoTools!.scanned).toBe(neverTools!.scanned);
    const [autoDirs, neverDirs] = await stampsOf({ skillsDirs: [skills] });
    expect(autoDirs!.scanned).toBe(neverDirs!.scanned);
    // The default sources with a skill of the user's: auto adds no demo, and saves and finds what never does.
    cpSync(path.join(skills, 'pdf-forms'), path.join(home, '.claude', 'skills', 'pdf-forms'), { recursive: true });
    const [autoUser, neverUser] = await stampsOf();
    expect([autoUser!.skills, neverUser!.skills]).toEqual([1, 1]);
    expect(autoUser!.scanned).toBe(neverUser!.scanned);
    expect([autoUser!.stated.portableStamp, neverUser!.stated.portableStamp]).toEqual([autoUser!.scanned, autoUser!.scanned]);
    expect(neverUser!.stated.withDemo).toBeUndefined();
    // No skill of the user's: auto loads the demo catalogue and saves it under its `withDemo` stamp, what `always` saves too.
    rmSync(path.join(home, '.claude'), { recursive: true });
    const [autoEmpty, neverEmpty] = await stampsOf();
    expect([autoEmpty!.skills > 0, neverEmpty!.skills]).toEqual([true, 0]);
    expect(autoEmpty!.scanned).not.toBe(neverEmpty!.scanned);
    expect(autoEmpty!.stated.withDemo?.portableStamp).toBe(autoEmpty!.scanned);
    expect((await demoCatalog('always').get()).portableStamp).toBe(autoEmpty!.scanned);
  });

  it('moves with every change a scan could see: an edit, a new or removed skill, a retargeted link, a touched tools file', async () => {
    const { skills, tools, catalog } = setup();
    const seen = new Set<string | undefined>();
    const step = async () => {
      const [scanned, stated] = await stamps(catalog());
      expect(stated).toBe(scanned);
      expect(seen.has(scanned)).toBe(false);
      seen.add(scanned);
    };
    await step();
    writeFileSync(path.join(skills, 'pdf-forms', 'SKILL.md'), '---\nname: pdf-forms\ndescription: Fill PDF forms, edited\n---\n');
    await step();
    mkdirSync(path.join(skills, 'kiln-schedule'));
    writeFileSync(path.join(skills, 'kiln-schedule', 'SKILL.md'), '---\nname: kiln-schedule\ndescription: Plan a pottery kiln firing\n---\n');
    await step();
    const elsewhere = tempDir();
    dirs.push(elsewhere);
    writeFileSync(path.join(elsewhere, 'a.md'), '---\nname: linked\ndescription: One target\n---\n');
    writeFileSync(path.join(elsewhere, 'b.md'), '---\nname: linked\ndescription: Another target\n---\n');
    symlinkSync(path.join(elsewhere, 'a.md'), path.join(skills, 'linked.md'));
    await step();
    rmSync(path.join(skills, 'linked.md'));
    symlinkSync(path.join(elsewhere, 'b.md'), path.join(skills, 'linked.md'));
    await step();
    rmSync(path.join(skills, 'kiln-schedule'), { recursive: true });
    await step();
    const later = new Date(Date.now() + 5_000);
    utimesSync(tools, later, later);
    await step();
  });
});
