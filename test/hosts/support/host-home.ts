/**
 * A fresh HOME for one host test: a few SKILL.md skills, this repo's CLI (bin/skill-search.js,
 * built) to install into it, and the host CLIs run in it with a minimal environment (nothing
 * from the caller's HOME, keys or settings leaks in).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { ROOT, removeDir } from '../../cli/helpers.js';
import { SKILLS } from './skills.js';

export const CLI_BIN = path.join(ROOT, 'bin', 'skill-search.js');

export interface SkillFile {
  readonly name: string;
  readonly description: string;
  /** More frontmatter lines, e.g. `disable-model-invocation: true`. */
  readonly frontmatter?: readonly string[];
  readonly body?: string;
  /** The whole SKILL.md as written (no frontmatter made up); `description` is then what a host should read from it. */
  readonly raw?: string;
}

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A host run longer than this is killed and reported (the stub answers at once). */
const RUN_TIMEOUT_MS = 120_000;

export function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; input?: string },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export class HostHome {
  readonly home: string;
  /** The folder the hosts run in (not a git repository, not this clone). */
  readonly project: string;

  constructor() {
    this.home = mkdtempSync(path.join(os.tmpdir(), 'skill-search-host-home-'));
    this.project = path.join(this.home, 'project');
    mkdirSync(this.project);
  }

  /** Writes `<root>/<name>/SKILL.md` for each skill; `root` is relative to HOME. */
  addSkills(root: string, skills: readonly SkillFile[]): void {
    for (const skill of skills) {
      const dir = path.join(this.home, root, skill.name);
      mkdirSync(dir, { recursive: true });
      const frontmatter = [`name: ${skill.name}`, `description: ${skill.description}`, ...(skill.frontmatter ?? [])];
      const text = skill.raw ?? `---\n${frontmatter.join('\n')}\n---\n${skill.body ?? `# ${skill.name}\n\nFollow these steps.\n`}`;
      writeFileSync(path.join(dir, 'SKILL.md'), text);
    }
  }

  /** The environment every process gets: this HOME, node on PATH, UTC, and `extra`. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
      HOME: this.home,
      TMPDIR: os.tmpdir(),
      TZ: 'UTC',
      LANG: 'C.UTF-8',
      SKILL_SEARCH_CACHE_DIR: path.join(this.home, '.cache', 'skill-search'),
      ...extra,
    };
  }

  /** This repo's CLI, as a user in this HOME runs it (`extra` added to its environment), whatever its exit code. */
  cliResult(args: readonly string[], extra: Record<string, string> = {}): Promise<ProcessResult> {
    return runProcess(process.execPath, [CLI_BIN, ...args], { cwd: this.project, env: this.env(extra) });
  }

  /** This repo's CLI, as a user in this HOME runs it; a non-zero exit throws. */
  async cli(args: readonly string[], extra: Record<string, string> = {}): Promise<ProcessResult> {
    const result = await this.cliResult(args, extra);
    if (result.code !== 0) throw new Error(`skill-search ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result;
  }

  /** A host CLI run in the project folder. */
  run(bin: string, args: readonly string[], env: Record<string, string>): Promise<ProcessResult> {
    return runProcess(bin, args, { cwd: this.project, env: this.env(env) });
  }

  remove(): void {
    removeDir(this.home);
  }
}

export type HostName = 'claude-code' | 'codex';

/** Where each host reads a user's skills from (Codex also reads `~/.agents/skills`). */
const SKILLS_ROOT: Record<HostName, string> = { 'claude-code': '.claude/skills', codex: '.agents/skills' };

/**
 * For one test file: each call makes a fresh HOME with `skills` where `host` reads them, and
 * `skill-search install <host>` run in it, then `skill-search index` unless `index` is false;
 * all are removed after the file.
 */
export function installedHomes(host: HostName): (skills?: readonly SkillFile[], options?: { index?: boolean }) => Promise<HostHome> {
  const made: HostHome[] = [];
  afterAll(() => {
    for (const home of made.splice(0)) home.remove();
  });
  return async (skills = SKILLS, { index = true } = {}) => {
    const home = new HostHome();
    made.push(home);
    home.addSkills(SKILLS_ROOT[host], skills);
    await home.cli(['install', host]);
    // Built ahead, as a user's first prompts leave it: the hook then answers within its budget.
    if (index) await home.cli(['index', '--cwd', home.project]);
    return home;
  };
}
