import { describe, expect, it } from 'vitest';
import { resolveCatalogOptions } from '../../src/load/options.js';
import { catalogStamps, restamped, type StampInputs } from '../../src/load/source-stamp.js';

type Dir = StampInputs['dirs'][number];

/** A folder of `count` SKILL.md files with made-up stats. */
function folderOf(count: number, stat: (i: number) => string | null = (i) => `${i}:1700000000000.5:1700000000000.5:${i}:1`): Dir {
  const files = Array.from({ length: count }, (_, i) => [`/home/u/.claude/skills/s-${i}/SKILL.md`, stat(i)] as const);
  return { source: { dir: '/home/u/.claude/skills', source: 'skills', rank: 4, layout: 'skills' }, stamp: { files, diagnostics: [] } };
}

const stampsOf = (dir: Dir) => catalogStamps({ options: resolveCatalogOptions({ cwd: '/home/u/project' }), dirs: [dir], tools: [], mcp: [] });

describe('a folder restamped with a few stats replaced', () => {
  it('has the stamps of the same files stamped afresh, its unchanged pieces reused, whichever piece the change falls in', () => {
    const now = folderOf(2_500);
    const nowStamps = stampsOf(now);
    for (const at of [0, 1_023, 1_024, 2_499]) {
      const old = 'old-stat';
      const base = restamped(now, new Map([[now.stamp.files[at]![0], old]]));
      const fresh = folderOf(2_500, (i) => (i === at ? old : now.stamp.files[i]![1]));
      expect(stampsOf(base), `file ${at}`).toEqual(stampsOf(fresh));
      expect(stampsOf(base).sourceStamp).not.toBe(nowStamps.sourceStamp);
    }
    // A missing file (null) told apart from its stat, and nothing replaced is the folder itself.
    const gone = restamped(now, new Map([[now.stamp.files[5]![0], null]]));
    expect(stampsOf(gone)).toEqual(stampsOf(folderOf(2_500, (i) => (i === 5 ? null : now.stamp.files[i]![1]))));
    expect(stampsOf(restamped(now, new Map()))).toEqual(nowStamps);
  });

  it('tells apart folders whose files differ only in their order across a piece boundary', () => {
    const a = folderOf(1_025);
    const files = [...a.stamp.files];
    const [last] = files.splice(1_024, 1);
    files.splice(1_023, 0, last!);
    expect(stampsOf({ ...a, stamp: { files, diagnostics: [] } }).sourceStamp).not.toBe(stampsOf(a).sourceStamp);
  });
});
