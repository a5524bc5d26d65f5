import { copyFileSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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

  it("is one for demo 'auto' and 'never' where auto cannot add the demo (an override), two where it can", async () => {
    const { skills, tools } = setup();
    const project = tempDir();
    dirs.push(project);
    const stampsOf = async (options: { skillsDirs?: string[]; toolsFiles?: string[] }) =>
      Promise.all(
        (['auto', 'never'] as const).map(async (demo) => (await new SkillCatalog({ ...options, demo, cwd: project, home: project }).stamps()).portableStamp),
      );
    // `skill-search index` (auto) and the hook (never) over the same --tools / --skills-dir.
    const [autoTools, neverTools] = await stampsOf({ toolsFiles: [tools] });
    expect(autoTools).toMatch(/^[0-9a-f]{64}$/);
    expect(autoTools).toBe(neverTools);
    const [autoDirs, neverDirs] = await stampsOf({ skillsDirs: [skills] });
    expect(autoDirs).toBe(neverDirs);
    // The default sources of an empty project: auto loads the demo catalogue, never does not.
    const [autoDefault, neverDefault] = await stampsOf({});
    expect(autoDefault).not.toBe(neverDefault);
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
