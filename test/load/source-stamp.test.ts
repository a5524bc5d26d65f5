import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotOf, stampFiles, statTextAt, withStats, type StampedFile } from '../../src/load/dir-stamp.js';
import { resolveCatalogOptions } from '../../src/load/options.js';
import { catalogStamps, restamped, type StampInputs } from '../../src/load/source-stamp.js';

type Dir = StampInputs['dirs'][number];

let root: string;
let candidates: StampedFile[];

/** 2,500 skill folders (a few with a policy file) and two loose files. */
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skill-search-stamp-'));
  candidates = [];
  for (let i = 0; i < 2_500; i++) {
    const folder = join(root, `s-${String(i).padStart(4, '0')}`);
    mkdirSync(folder);
    writeFileSync(join(folder, 'SKILL.md'), `---\ndescription: skill ${i}\n---\n`);
    if (i % 500 === 7) {
      mkdirSync(join(folder, 'agents'));
      writeFileSync(join(folder, 'agents', 'openai.yaml'), 'policy:\n  allow_implicit_invocation: false\n');
    }
    candidates.push({ file: join(folder, 'SKILL.md'), folder });
  }
  for (const name of ['loose.md', 'gone.md']) candidates.push({ file: join(root, name) });
  writeFileSync(join(root, 'loose.md'), '---\ndescription: loose\n---\n');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const source: Dir['source'] = { dir: '/home/u/.claude/skills', source: 'skills', rank: 4, layout: 'skills' };
const dirOf = (files: readonly StampedFile[]): Dir => ({ source, stamp: stampFiles(files, [], 0, new Set()) });
const stampsOf = (dir: Dir) => catalogStamps({ options: resolveCatalogOptions({ cwd: '/home/u/project' }), dirs: [dir], tools: [], mcp: [] });

describe('a folder stamp', () => {
  it("holds each file's stat and its policy file's as text, missing ones as null and a loose file's policy as none", () => {
    const { stamp } = dirOf(candidates);
    const { size, mtimeMs, ctimeMs, ino, dev } = statSync(candidates[0]!.file);
    expect(statTextAt(stamp, slotOf(0))).toBe(`${size}:${mtimeMs}:${ctimeMs}:${ino}:${dev}`);
    expect(statTextAt(stamp, slotOf(0) + 1)).toBeNull();
    expect(statTextAt(stamp, slotOf(7) + 1)).toMatch(/^\d+:[\d.]+:[\d.]+:\d+:\d+$/);
    expect(statTextAt(stamp, slotOf(2_500))).not.toBeNull();
    expect(statTextAt(stamp, slotOf(2_500) + 1)).toBeUndefined();
    expect(statTextAt(stamp, slotOf(2_501))).toBeNull();
  });

  it('changes when a policy file is added beside a SKILL.md, and not when nothing moved', () => {
    const before = stampsOf(dirOf(candidates));
    expect(stampsOf(dirOf(candidates))).toEqual(before);
    const folder = candidates[42]!.folder!;
    mkdirSync(join(folder, 'agents'));
    writeFileSync(join(folder, 'agents', 'openai.yaml'), 'policy:\n  allow_implicit_invocation: false\n');
    try {
      expect(stampsOf(dirOf(candidates)).sourceStamp).not.toBe(before.sourceStamp);
    } finally {
      rmSync(join(folder, 'agents'), { recursive: true });
    }
  });
});

describe('a folder restamped with a few stats replaced', () => {
  it('has the stamps of the same files stamped afresh, its unchanged pieces reused, whichever piece the change falls in', () => {
    const now = dirOf(candidates);
    const nowStamps = stampsOf(now);
    for (const at of [0, 7, 1_023, 1_024, 2_499, 2_500]) {
      const old = new Map([[candidates[at]!.file, { own: '12:1700000000000.5:1700000000000.5:99:1', policy: at === 2_500 ? undefined : null }]]);
      const base = restamped(now, old);
      // The same stats, every piece hashed again (a copy: no stamp it was made from).
      const fresh = { source, stamp: { ...withStats(now.stamp, old) } };
      expect(stampsOf(base), `file ${at}`).toEqual(stampsOf(fresh));
      expect(stampsOf(base).sourceStamp).not.toBe(nowStamps.sourceStamp);
      expect(statTextAt(base.stamp, slotOf(at))).toBe('12:1700000000000.5:1700000000000.5:99:1');
    }
    // A missing file (null) and an unreadable one told apart from its stat, and nothing replaced is the folder itself.
    const gone = restamped(now, new Map([[candidates[5]!.file, { own: null, policy: null }]]));
    const failed = restamped(now, new Map([[candidates[5]!.file, { own: 'error:EACCES', policy: null }]]));
    expect(stampsOf(gone)).toEqual(stampsOf({ source, stamp: { ...withStats(now.stamp, new Map([[candidates[5]!.file, { own: null, policy: null }]])) } }));
    expect(stampsOf(gone).sourceStamp).not.toBe(stampsOf(failed).sourceStamp);
    expect(statTextAt(failed.stamp, slotOf(5))).toBe('error:EACCES');
    expect(stampsOf(restamped(now, new Map()))).toEqual(nowStamps);
    // Stats put back as they were give the stamp of now.
    const text = { own: statTextAt(now.stamp, slotOf(7))!, policy: statTextAt(now.stamp, slotOf(7) + 1) };
    expect(stampsOf(restamped(now, new Map([[candidates[7]!.file, text]])))).toEqual(nowStamps);
  });

  it('tells apart folders whose files differ only in their order across a piece boundary', () => {
    const files = candidates.slice(0, 1_025);
    const swapped = [...files];
    const [last] = swapped.splice(1_024, 1);
    swapped.splice(1_023, 0, last!);
    expect(stampsOf(dirOf(swapped)).sourceStamp).not.toBe(stampsOf(dirOf(files)).sourceStamp);
  });
});
