import type { CatalogSnapshot, Skill } from '../types.js';
import type { DirStamp, StatTexts } from './dir-stamp.js';
import { memoKeyStats, type MovedFile, type ScanMemo } from './scan.js';
import type { MemoEntry, ReadEntry } from './scan-memo.js';
import { catalogStamps, restamped, type ReadStamps, type StampInputs } from './source-stamp.js';
import type { CatalogDelta } from './tools-delta.js';

/** One skill folder as its last scan left it: its stamp and its memo (the entries before the scan and the files it read). */
export interface ScannedDir {
  readonly source: StampInputs['dirs'][number]['source'];
  readonly stamp: DirStamp;
  readonly memo: ScanMemo;
}

/**
 * The skill a file read again loads as, when that is an edit in place of the skill its memo entry held: both read as plain files
 * (not through a link), both a skill, of the same id, name, path, source and rank. Undefined when only a whole load can tell.
 */
function editedInPlace(old: Pick<MemoEntry, 'parsed' | 'plain'>, now: Pick<ReadEntry, 'parsed' | 'plain'>): Skill | undefined {
  const was = old.parsed.skill;
  const is = now.parsed.skill;
  if (was === undefined || is === undefined || !old.plain || !now.plain) return undefined;
  if (was.id !== is.id || was.name !== is.name || was.path !== is.path || was.source !== is.source || was.rank !== is.rank) return undefined;
  return is;
}

/**
 * A catalog of skill folders only as a change of the one its scan memos were kept with (the *base*), as `toolsDelta` tells a tools
 * file's: the files the scan read whose stat moved from their memo entry's are the changed skills, each at its document there; the
 * base's stamps are the stamps now with each such file's (and its policy file's) stat as its entry kept it. Undefined when only a
 * whole load can tell it: a changed file that lost or gained its skill, changed its id, name, path or rank, or was reached through a
 * link, a changed skill shadowed, or nothing changed. The base is not checked here: a stamp no saved catalog has is no base
 * (`holdDelta`), so a file the memo did not hold is taken as unchanged.
 */
export function folderDelta(snapshot: CatalogSnapshot, dirs: readonly ScannedDir[], stamp: Omit<StampInputs, 'dirs'>): CatalogDelta | undefined {
  if (snapshot.sourceStamp === undefined) return undefined;
  const changed = new Set<Skill>();
  const baseDirs: StampInputs['dirs'][number][] = [];
  for (const { source, stamp: now, memo } of dirs) {
    const kept = new Map<string, StatTexts>();
    for (const [file, { parsed, plain, key }] of memo.read) {
      const old = memo.previous.get(file);
      // Not in the memo (added since, or its stat unreadable): taken as the base has it, which a saved base's stamp tells.
      if (old === undefined) continue;
      // Read again only because it was modified recently: unchanged.
      if (key !== undefined && key === old.key) continue;
      const is = editedInPlace(old, { parsed, plain });
      if (is === undefined) return undefined;
      kept.set(file, memoKeyStats(old.key));
      changed.add(is);
    }
    baseDirs.push(kept.size === 0 ? { source, stamp: now } : restamped({ source, stamp: now }, kept));
  }
  if (changed.size === 0) return undefined;
  const members = snapshot.skills.map((skill, doc) => (changed.has(skill) ? skill : doc));
  if (members.filter((m) => typeof m !== 'number').length !== changed.size) return undefined;
  const base = catalogStamps({ ...stamp, dirs: baseDirs });
  if (base.sourceStamp === undefined) return undefined;
  return {
    sourceStamp: snapshot.sourceStamp,
    portableStamp: snapshot.portableStamp,
    diagnostics: snapshot.diagnostics,
    base: { sourceStamp: base.sourceStamp, portableStamp: base.portableStamp },
    members,
    baseIds: snapshot.skills.map((skill) => skill.id),
    tables: () => [],
  };
}

/**
 * A catalog of skill folders as a few skills edited in place over the catalog its scan memos were kept with, told without scanning
 * (`SkillCatalog.folderEdits`): the stamps now, the base's, and the edited skills, whose documents the base's members give (by id,
 * `CatalogWriter.deltaOfEdits`). Every other file and the catalog's load problems are the base's.
 */
export interface FolderEdits extends ReadStamps {
  readonly base: ReadStamps;
  readonly edited: readonly Skill[];
}

/**
 * {@link folderDelta} told from each stamped folder's {@link movedFiles} instead of a scan: undefined when nothing moved or only a
 * whole load can tell it, and when a moved file's load problems changed (the catalog's would then be the base's no more).
 */
export function folderEdits(
  dirs: readonly (StampInputs['dirs'][number] & { readonly moved: readonly MovedFile[] })[],
  stamp: Omit<StampInputs, 'dirs'>,
): FolderEdits | undefined {
  const edited: Skill[] = [];
  const baseDirs: StampInputs['dirs'][number][] = [];
  for (const dir of dirs) {
    const kept = new Map<string, StatTexts>();
    for (const { file, old, now } of dir.moved) {
      const is = editedInPlace(old, now);
      if (is === undefined) return undefined;
      if (JSON.stringify(old.parsed.diagnostics) !== JSON.stringify(now.parsed.diagnostics)) return undefined;
      kept.set(file, memoKeyStats(old.key));
      edited.push(is);
    }
    baseDirs.push(kept.size === 0 ? dir : restamped(dir, kept));
  }
  if (edited.length === 0) return undefined;
  const now = catalogStamps({ ...stamp, dirs });
  const base = catalogStamps({ ...stamp, dirs: baseDirs });
  if (now.sourceStamp === undefined || base.sourceStamp === undefined) return undefined;
  return {
    sourceStamp: now.sourceStamp,
    portableStamp: now.portableStamp,
    base: { sourceStamp: base.sourceStamp, portableStamp: base.portableStamp },
    edited,
  };
}
