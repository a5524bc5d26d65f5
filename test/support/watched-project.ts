import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { SkillCatalog, type CatalogOptions } from '../../src/load/index.js';
import { removeDir, tempDir, writeTree } from '../load/helpers.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the project lies under the test's root. `home/project` (the default) is inside the home, as most projects are. */
export interface ProjectPlace {
  /**
   * Relative to the root. Inside `home`, the upward walk for project skills stops at the home: from a project outside it the
   * watcher also watches /tmp (for /tmp/.claude/skills), where every test on the machine writes, and its events come late.
   * @default 'home/project'
   */
  readonly project?: string;
}

/** A project under a temporary root, its home `root/home`, and a catalog of it without bundled or managed skills. */
export interface WatchedProject {
  readonly root: string;
  readonly project: string;
  /** The project's `.claude/skills`. */
  readonly skills: string;
  /** A test may replace it (other options): the one set here last is closed after the test. */
  catalog: SkillCatalog;
}

/** A catalog of the project at `place` under `root`, with `options` over the watcher tests' defaults. */
export function projectCatalog(root: string, { project = 'home/project', ...options }: CatalogOptions & ProjectPlace = {}): SkillCatalog {
  return new SkillCatalog({ cwd: join(root, project), home: join(root, 'home'), bundledDir: null, managedDir: null, ...options });
}

async function openProject(tree: Record<string, string>, place: ProjectPlace): Promise<WatchedProject> {
  const root = await tempDir();
  await writeTree(root, tree);
  const project = join(root, place.project ?? 'home/project');
  return { root, project, skills: join(project, '.claude', 'skills'), catalog: projectCatalog(root, place) };
}

async function closeProject(watched: WatchedProject): Promise<void> {
  await watched.catalog.close();
  await removeDir(watched.root);
}

/**
 * For each test of the file (call at module level): a new root holding `tree` (paths relative to the root) and a catalog of its
 * project, in the returned object; the catalog is closed and the root removed after the test.
 */
export function watchedProjectEach(tree: () => Record<string, string>, place: ProjectPlace = {}): WatchedProject {
  const current = {} as WatchedProject;
  beforeEach(async () => {
    Object.assign(current, await openProject(tree(), place));
  });
  afterEach(() => closeProject(current));
  return current;
}

/** Runs `test` over a new root holding `tree` and a catalog of its project; closes and removes them after, whatever happened. */
export async function withWatchedProject(tree: Record<string, string>, place: ProjectPlace, test: (watched: WatchedProject) => Promise<void>): Promise<void> {
  const watched = await openProject(tree, place);
  try {
    await test(watched);
  } finally {
    await closeProject(watched);
  }
}
