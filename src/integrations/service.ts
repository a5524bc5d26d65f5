import type { Skill, SkillSearcher } from '../types.js';

/** A search that can be closed: a `LiveIndex`, an `OpenedSearch`, a host's wrapper of one. */
export interface ClosableSearcher extends SkillSearcher {
  close(): Promise<void>;
}

/** What an integration (hook, MCP server) needs: a search over the current catalog, and the catalog. `LiveIndex` implements it. */
export interface SkillService extends ClosableSearcher {
  /** The winning skills of the current catalog, highest rank first. */
  skills(): Promise<readonly Skill[]>;
}
