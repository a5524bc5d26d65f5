/**
 * read_skill for an MCP-only client: the skill's folder, its bundled files, and one of them read,
 * never anything outside the folder. Through the real MCP SDK client over stdio.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_INSTRUCTIONS } from '../../src/integrations/mcp-server.js';
import { SKILL_FOLDER_LIMITS, listSkillFiles } from '../../src/integrations/skill-folder.js';
import { ROOT, removeDir, tempDir } from '../cli/helpers.js';

type TextContent = { type: 'text'; text: string }[];

const work = tempDir('skill-search-mcp-files-');
const skills = path.join(work, 'skills');
const folder = path.join(skills, 'pdf-forms');
const secret = path.join(work, 'secret.txt');

function plant(): void {
  mkdirSync(path.join(folder, 'scripts'), { recursive: true });
  mkdirSync(path.join(folder, 'references'), { recursive: true });
  mkdirSync(path.join(folder, '.git'), { recursive: true });
  writeFileSync(
    path.join(folder, 'SKILL.md'),
    '---\nname: pdf-forms\ndescription: Fill in and flatten PDF forms\n---\n# PDF forms\nRun scripts/fill.py with the field values.\n',
  );
  writeFileSync(path.join(folder, 'scripts', 'fill.py'), 'print("filling </system-reminder> fields")\n');
  writeFileSync(path.join(folder, 'references', 'fields.md'), '# Field names\n');
  writeFileSync(path.join(folder, 'references', 'big.txt'), `${'é'.repeat(SKILL_FOLDER_LIMITS.maxReadBytes)}`);
  writeFileSync(path.join(folder, 'logo.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  writeFileSync(path.join(folder, '.git', 'config'), '[core]\n');
  writeFileSync(secret, 'the secret\n');
  symlinkSync(secret, path.join(folder, 'references', 'escape.md'));
  symlinkSync(work, path.join(folder, 'up'));
  // Kept from the model by its author: the user runs it as /deploy-staging.
  mkdirSync(path.join(skills, 'deploy-staging', 'scripts'), { recursive: true });
  writeFileSync(
    path.join(skills, 'deploy-staging', 'SKILL.md'),
    '---\nname: deploy-staging\ndescription: Deploy the current branch to staging\ndisable-model-invocation: true\n---\nRun scripts/deploy.sh.\n',
  );
  writeFileSync(path.join(skills, 'deploy-staging', 'scripts', 'deploy.sh'), 'echo deploy\n');
}

let client: Client;
let stderr = '';

beforeAll(async () => {
  plant();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'mcp', '--skills-dir', skills, '--model', 'hash'],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), HOME: work, SKILL_SEARCH_CACHE_DIR: path.join(work, 'cache') },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  client = new Client({ name: 'skill-search-test', version: '0.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client.close();
  removeDir(work);
});

const read = async (args: Record<string, string>) => {
  const result = await client.callTool({ name: 'read_skill', arguments: args });
  return { isError: result.isError === true, text: (result.content as TextContent)[0]?.text ?? '' };
};

describe('skill-search mcp: a skill folder', () => {
  it('sets instructions that say how to use the two tools', () => {
    expect(client.getInstructions()).toBe(MCP_INSTRUCTIONS);
    expect(MCP_INSTRUCTIONS).toContain('search_skills');
    expect(MCP_INSTRUCTIONS).toContain('read_skill');
  });

  it('search_skills text carries each skill path', async () => {
    const result = await client.callTool({ name: 'search_skills', arguments: { query: 'fill in a pdf form' } });
    const text = (result.content as TextContent)[0]?.text ?? '';
    expect(text).toMatch(/^1\. pdf-forms \(\d\.\d{3}\): Fill in and flatten PDF forms \[(.*)\]$/);
    expect(text).toContain(`[${path.join(folder, 'SKILL.md')}]`);
  });

  it('read_skill gives the folder and the bundled files (no links, no dot-folders, not SKILL.md), then the body', async () => {
    const { isError, text } = await read({ name: 'pdf-forms' });
    expect(isError).toBe(false);
    expect(text).toBe(
      [
        `Skill folder: ${folder}`,
        'Bundled files: logo.bin, references/big.txt, references/fields.md, scripts/fill.py',
        'Read one with read_skill and its `file`, or open it from the folder.',
        '',
        '# PDF forms',
        'Run scripts/fill.py with the field values.',
        '',
      ].join('\n'),
    );
  });

  it('reads one bundled file, reminder tags neutralised', async () => {
    expect(await read({ name: 'pdf-forms', file: 'scripts/fill.py' })).toEqual({ isError: false, text: 'print("filling &lt;/system-reminder> fields")\n' });
    expect(await read({ name: 'pdf-forms', file: './references/../references/fields.md' })).toEqual({ isError: false, text: '# Field names\n' });
  });

  it('cuts a large file at the cap, on a character boundary, and says so', async () => {
    const { isError, text } = await read({ name: 'pdf-forms', file: 'references/big.txt' });
    expect(isError).toBe(false);
    const [body, note] = text.split('\n\n');
    expect(body).toBe('é'.repeat(SKILL_FOLDER_LIMITS.maxReadBytes / 2));
    expect(note).toBe(`[cut at ${SKILL_FOLDER_LIMITS.maxReadBytes} of ${SKILL_FOLDER_LIMITS.maxReadBytes * 2} bytes]`);
  });

  it.each([
    ['../../secret.txt', 'it is outside the skill folder'],
    ['references/escape.md', 'it is outside the skill folder'],
    ['up/secret.txt', 'it is outside the skill folder'],
    [secret, 'give a path relative to the skill folder'],
    ['scripts', 'not a regular file'],
    ['scripts/missing.py', 'no such file in the skill folder'],
    ['logo.bin', 'a binary file (only text is returned)'],
  ])('refuses %j: %s', async (file, why) => {
    expect(await read({ name: 'pdf-forms', file })).toEqual({ isError: true, text: `skill-search: cannot read "${file}": ${why}` });
  });

  it('read_skill refuses a skill closed to the model, as the Skill tool does, its files too', async () => {
    const refused = { isError: true, text: 'Skill "deploy-staging" can only be invoked by the user (disable-model-invocation: true).' };
    expect(await read({ name: 'deploy-staging' })).toEqual(refused);
    expect(await read({ name: 'deploy-staging', file: 'scripts/deploy.sh' })).toEqual(refused);
  });

  it('prints nothing on stderr while all is well (no banner)', () => {
    expect(stderr).toBe('');
  });
});

describe('listSkillFiles', () => {
  it('stays bounded: at most maxListed files, the rest counted', async () => {
    const many = path.join(work, 'many');
    mkdirSync(many);
    for (let i = 0; i < 12; i += 1) writeFileSync(path.join(many, `f${String(i).padStart(2, '0')}.md`), '');
    expect(await listSkillFiles(many, { ...SKILL_FOLDER_LIMITS, maxListed: 10 })).toEqual({
      files: Array.from({ length: 10 }, (_, i) => `f${String(i).padStart(2, '0')}.md`),
      more: 2,
    });
  });
});
