/**
 * The README's agent-loop block, compiled as a user's strict TypeScript project compiles it: by
 * package name, against the built declarations (`exports`), so a renamed export, option or type
 * in the public API breaks this test and not a reader's first build.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../../scripts/ensure-built.js';
import { removeDir } from '../cli/helpers.js';

/** The ```ts block of a README section. */
function tsBlock(readme: string, heading: string): string {
  const section = readme.indexOf(`\n## ${heading}\n`);
  const start = readme.indexOf('```ts\n', section);
  return readme.slice(start + '```ts\n'.length, readme.indexOf('\n```', start));
}

/** What the block leaves to the reader: the turn's message and how it reaches the model. */
const READER = 'declare const userMessage: string;\ndeclare function send(messages: unknown): void;\nexport {};\n';

describe('README: the agent-loop block', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('compiles by package name with strict checks, and names only what the package exports', () => {
    const block = tsBlock(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'Your own agent loop');
    expect(block).toContain("from 'skill-search/prefetch'");
    // Inside the package folder, so `skill-search/…` resolves to this package through its `exports`.
    const dir = mkdtempSync(path.join(ROOT, '.readme-ts-'));
    try {
      writeFileSync(path.join(dir, 'loop.ts'), `${block}\n${READER}`);
      const config = {
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'] },
        files: ['loop.ts'],
      };
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
      const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      let output = '';
      try {
        execFileSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8' });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout);
      }
      expect(output).toBe('');
    } finally {
      removeDir(dir);
    }
  }, 120_000);
});
