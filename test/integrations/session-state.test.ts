import { mkdirSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClaudeCodeHook } from '../../src/integrations/claude-code-hook.js';
import { SessionState, sessionsDir } from '../../src/integrations/session-state.js';
import type { SearchHit } from '../../src/types.js';
import { hookHit } from '../support/hook-skills.js';
import { SKILLS, removeDir, runCli, tempDir } from '../cli/helpers.js';

const HITS: SearchHit[] = [hookHit('pdf-forms', 0.9), hookHit('image-resize', 0.5)];

let root: string;
let dir: string;
beforeEach(() => {
  root = tempDir('skill-search-session-');
  dir = sessionsDir(root);
});
afterEach(() => removeDir(root));

const COMPACT = JSON.stringify({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted' });

function transcript(name: string, lines: readonly string[]): string {
  const file = path.join(root, name);
  writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
  return file;
}

async function announce(
  sessionId: string,
  transcriptPath: string,
  options: { hits?: SearchHit[]; logs?: string[]; sessionDir?: string; host?: 'claude-code' | 'codex' } = {},
) {
  const input = JSON.stringify({
    session_id: sessionId,
    transcript_path: transcriptPath,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'fill in the pdf form and resize the image',
  });
  const result = await runClaudeCodeHook(input, {
    open: async () => ({ search: async () => options.hits ?? HITS, close: async () => undefined }),
    k: 3,
    timeoutMs: 5000,
    log: (line) => options.logs?.push(line),
    sessionDir: options.sessionDir ?? dir,
    ...(options.host === undefined ? {} : { host: options.host }),
  });
  if (result.stdout === '') return [];
  const text = (JSON.parse(result.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
  // The discovery's list only (for Codex, the lines on how to load them follow a blank line).
  return [...(text.split('\n\n')[1] ?? '').matchAll(/^- ([\w-]+):/gm)].map((match) => match[1]);
}

describe('one suggestion per session', () => {
  it('the same prompt twice in one session: the second gets no repeated suggestion; a new session does', async () => {
    const file = transcript('s1.jsonl', []);
    expect(await announce('s1', file)).toEqual(['pdf-forms', 'image-resize']);
    expect(await announce('s1', file)).toEqual([]);
    expect(await announce('s2', transcript('s2.jsonl', []))).toEqual(['pdf-forms', 'image-resize']);
  });

  it("the same for Codex (its session id and rollout file), whose compaction is a 'compacted' entry", async () => {
    const file = transcript('rollout.jsonl', [JSON.stringify({ type: 'event_msg', payload: { type: 'user_message', message: 'fill the pdf' } })]);
    expect(await announce('codex-1', file, { host: 'codex' })).toEqual(['pdf-forms', 'image-resize']);
    expect(await announce('codex-1', file, { host: 'codex' })).toEqual([]);
    transcript('rollout.jsonl', [JSON.stringify({ type: 'compacted', payload: { message: 'summary' } })]);
    expect(await announce('codex-1', file, { host: 'codex' })).toEqual(['pdf-forms', 'image-resize']);
  });

  it('a skill not announced yet still is, beside those already announced', async () => {
    const file = transcript('s.jsonl', []);
    expect(await announce('s', file, { hits: HITS.slice(0, 1) })).toEqual(['pdf-forms']);
    expect(await announce('s', file)).toEqual(['image-resize']);
  });

  it('announces again once the conversation was compacted, then not again until the next compaction', async () => {
    const lines = [JSON.stringify({ type: 'user', message: { role: 'user', content: 'fill the pdf' } })];
    const file = transcript('c.jsonl', lines);
    expect(await announce('c', file)).toEqual(['pdf-forms', 'image-resize']);
    transcript('c.jsonl', [...lines, COMPACT]);
    expect(await announce('c', file)).toEqual(['pdf-forms', 'image-resize']);
    expect(await announce('c', file)).toEqual([]);
  });

  it('a cleared conversation (another transcript for the session) starts fresh', async () => {
    expect(await announce('x', transcript('x1.jsonl', []))).toEqual(['pdf-forms', 'image-resize']);
    expect(await announce('x', transcript('x2.jsonl', []))).toEqual(['pdf-forms', 'image-resize']);
  });

  it('keeps its files private: folder 0700, file 0600', async () => {
    await announce('p', transcript('p.jsonl', []));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(dir);
    expect(statSync(path.join(dir, file ?? '')).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['garbage', (file: string) => writeFileSync(file, '{"version":1,"transcript":')],
    ['the wrong shape', (file: string) => writeFileSync(file, JSON.stringify({ version: 1, transcript: '', compactions: -1, announced: ['pdf-forms'] }))],
    [
      'too large',
      (file: string) => writeFileSync(file, JSON.stringify({ version: 1, transcript: '', compactions: 0, announced: ['pdf-forms'], pad: 'x'.repeat(100_000) })),
    ],
    [
      'a symlink to another file',
      (file: string) => {
        const elsewhere = path.join(root, 'elsewhere.json');
        writeFileSync(elsewhere, JSON.stringify({ version: 1, transcript: '', compactions: 0, announced: ['pdf-forms'] }));
        symlinkSync(elsewhere, file);
      },
    ],
    ['a folder', (file: string) => mkdirSync(file)],
  ])('a state file that is %s is ignored', async (_kind, plant) => {
    // Where session "h" (no transcript) keeps its memory.
    const file = SessionState.open('h', { transcript: '', compactions: 0 }, { dir }).file;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    plant(file);
    const logs: string[] = [];
    const input = JSON.stringify({ session_id: 'h', hook_event_name: 'UserPromptSubmit', prompt: 'fill the pdf' });
    const result = await runClaudeCodeHook(input, {
      open: async () => ({ search: async () => HITS, close: async () => undefined }),
      k: 3,
      timeoutMs: 5000,
      log: (line) => logs.push(line),
      sessionDir: dir,
    });
    expect(result.outcome).toBe('context');
    expect(result.stdout).toContain('pdf-forms');
  });

  it('a memory that cannot be written costs one stderr line, never the answer', async () => {
    const blocked = path.join(root, 'not-a-folder');
    writeFileSync(blocked, '');
    const logs: string[] = [];
    expect(await announce('w', transcript('w.jsonl', []), { logs, sessionDir: blocked })).toEqual(['pdf-forms', 'image-resize']);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^skill-search hook: session memory not saved \(.*not-a-folder.*\): .*(EEXIST|ENOTDIR|is a file)/);
  });

  it('stays bounded: old sessions and those beyond the newest maxFiles are pruned', () => {
    const now = Date.now();
    for (let i = 0; i < 5; i += 1) {
      const state = SessionState.open(`s${i}`, { transcript: '', compactions: 0 }, { dir });
      state.remember(['a']);
      expect(state.save()).toBeUndefined();
      utimesSync(state.file, (now - (10 - i) * 1000) / 1000, (now - (10 - i) * 1000) / 1000);
    }
    const stale = SessionState.open('stale', { transcript: '', compactions: 0 }, { dir });
    stale.remember(['a']);
    stale.save();
    utimesSync(stale.file, (now - 30 * 86_400_000) / 1000, (now - 30 * 86_400_000) / 1000);
    const latest = SessionState.open('latest', { transcript: '', compactions: 0 }, { dir, maxFiles: 3, now: () => now });
    latest.remember(['b']);
    expect(latest.save()).toBeUndefined();
    const kept = new Set(readdirSync(dir));
    const fileOf = (id: string) => path.basename(SessionState.open(id, { transcript: '', compactions: 0 }, { dir }).file);
    expect(kept).toEqual(new Set([fileOf('latest'), fileOf('s4'), fileOf('s3')]));
  });

  it('prunes when a save adds a session file, not on every save of a known session', () => {
    const now = Date.now();
    const stale = SessionState.open('stale', { transcript: '', compactions: 0 }, { dir });
    stale.remember(['a']);
    stale.save();
    const known = SessionState.open('known', { transcript: '', compactions: 0 }, { dir });
    known.remember(['a']);
    known.save();
    utimesSync(stale.file, (now - 30 * 86_400_000) / 1000, (now - 30 * 86_400_000) / 1000);
    const again = SessionState.open('known', { transcript: '', compactions: 0 }, { dir, now: () => now });
    again.remember(['b']);
    expect(again.save()).toBeUndefined();
    expect(new Set(readdirSync(dir))).toEqual(new Set([path.basename(stale.file), path.basename(known.file)]));
    const added = SessionState.open('added', { transcript: '', compactions: 0 }, { dir, now: () => now });
    added.remember(['c']);
    expect(added.save()).toBeUndefined();
    expect(new Set(readdirSync(dir))).toEqual(new Set([path.basename(known.file), path.basename(added.file)]));
  });

  it('remembers at most maxNames names, the newest', () => {
    const state = SessionState.open('n', { transcript: '', compactions: 0 }, { dir, maxNames: 2 });
    state.remember(['a', 'b', 'c']);
    state.save();
    expect([...SessionState.open('n', { transcript: '', compactions: 0 }, { dir, maxNames: 2 }).announced]).toEqual(['b', 'c']);
  });
});

describe('skill-search hook claude-code: one suggestion per session (process)', () => {
  it('a repeated prompt in one session gets nothing the second time; a new session gets it again', async () => {
    const cache = tempDir();
    try {
      const argv = ['hook', 'claude-code', '--skills-dir', SKILLS, '--model', 'hash', '--timeout-ms', '20000'];
      const input = (session: string) =>
        JSON.stringify({
          session_id: session,
          transcript_path: '/dev/null',
          cwd: cache,
          hook_event_name: 'UserPromptSubmit',
          prompt: 'a test fails sometimes in CI but passes locally, flaky',
        });
      const first = await runCli(argv, cache, { stdin: input('one') });
      expect(first.stdout).toContain('flaky-tests');
      const again = await runCli(argv, cache, { stdin: input('one') });
      expect(again).toMatchObject({ code: 0, stdout: '' });
      const other = await runCli(argv, cache, { stdin: input('two') });
      expect(other.stdout).toContain('flaky-tests');
    } finally {
      removeDir(cache);
    }
  });
});
