/** What each host lists and loads by itself; a suggestion of anything else needs its path and a word on how to load it. */
import { statSync } from 'node:fs';
import { neutralizeReminderText } from '../attachments/reminder.js';
import { SkillMatcher } from '../load/skill-globs.js';
import type { HostName, LoadedFrom, SearchHit, SearchRequest, Skill, SkillSearcher } from '../types.js';
import { escapeForTerminal } from '../util/escape.js';
import type { ClosableSearcher } from './service.js';

/** The sources each host scans itself: their skills are in its listing and load by name. */
const HOST_NATIVE_SOURCES: Readonly<Record<HostName, readonly LoadedFrom[]>> = Object.freeze({
  'claude-code': Object.freeze(['bundled', 'plugin', 'managed', 'skills', 'commands_DEPRECATED', 'mcp'] as const),
  codex: Object.freeze(['codex'] as const),
});

/** The stdout line that shows a problem to the user of `host` (Claude Code's `systemMessage`), or `''` (Codex: its stderr line only). */
export function hookNotice(host: HostName, line: string): string {
  return host === 'claude-code' ? `${JSON.stringify({ systemMessage: line })}\n` : '';
}

export function isNativeTo(host: HostName, source: LoadedFrom): boolean {
  return HOST_NATIVE_SOURCES[host].includes(source);
}

/** Claude Code (2.1.197 and 2.1.337) leaves a skill file of more bytes than this out of its listing (seen in its requests: 1,000,000 listed, 1,000,001 not). */
const CLAUDE_CODE_MAX_SKILL_FILE_BYTES = 1_000_000;

/** Whether `host` skips the skill file at `file` for its size (one it cannot stat is left to the host). */
export function tooLargeFor(host: HostName, file: string): boolean {
  if (host !== 'claude-code') return false;
  try {
    return (statSync(file, { throwIfNoEntry: false })?.size ?? 0) > CLAUDE_CODE_MAX_SKILL_FILE_BYTES;
  } catch {
    return false;
  }
}

/** Whether `host` lists `skill` itself (and loads it by name): a source it scans, in a file it does not skip. */
export function isListedBy(host: HostName, skill: Pick<Skill, 'source' | 'path'>): boolean {
  return isNativeTo(host, skill.source) && !tooLargeFor(host, skill.path);
}

/** A skill as a suggestion needs it: enough to say where it is. */
export type DeferredSkill = Pick<Skill, 'name' | 'path' | 'source'>;

/** The lines appended to a discovery for the suggested skills `host` does not list (their files, how to load them); undefined when none. */
export function loadInstructions(host: HostName, suggested: readonly DeferredSkill[]): string | undefined {
  const deferred = suggested.filter((skill) => !isListedBy(host, skill));
  if (deferred.length === 0) return undefined;
  const lines = deferred.map((skill) => `- ${neutralizeReminderText(skill.name)}: ${escapeForTerminal(neutralizeReminderText(skill.path))}`);
  return [
    'Not in your skill list; to use one, read its SKILL.md file below and follow it (or call the skill-search MCP tool read_skill with its name):',
    ...lines,
  ].join('\n');
}

/** A searcher for a host: without demo skills (unless kept), remembering every hit so the suggestions can be given their paths. */
export class HostSearcher implements ClosableSearcher {
  readonly #inner: ClosableSearcher;
  readonly #keepDemo: boolean;
  readonly seen = new Map<string, DeferredSkill>();

  constructor(inner: ClosableSearcher, options: { readonly keepDemo: boolean }) {
    this.#inner = inner;
    this.#keepDemo = options.keepDemo;
  }

  async search(query: string, request?: SearchRequest): Promise<readonly SearchHit[]> {
    const hits = await this.#inner.search(query, request);
    const kept = this.#keepDemo ? hits : hits.filter((hit) => hit.skill.source !== 'demo');
    for (const { skill } of kept) this.seen.set(skill.name, { name: skill.name, path: skill.path, source: skill.source });
    return kept;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** `inner` with hits matching a `never` pattern (the user's "never suggest") dropped from its searches; other methods unchanged. */
export function neverSuggesting<T extends SkillSearcher>(inner: T, patterns: readonly string[]): T {
  if (patterns.length === 0) return inner;
  const never = new SkillMatcher(patterns);
  return withoutHits(inner, (skill) => never.matches(skill));
}

/**
 * `inner` without the hits, from sources `host` does not scan, named as a skill the host lists
 * itself (`hostNames`, e.g. Codex's `.system` skills): the model would see two skills of one name.
 */
export function hostShadowing<T extends SkillSearcher>(inner: T, host: HostName, hostNames: ReadonlySet<string>): T {
  if (hostNames.size === 0) return inner;
  return withoutHits(inner, (skill) => isHostShadowed(skill, host, hostNames));
}

/** Whether `skill`, from a source `host` does not scan, is named as one the host lists itself (`hostNames`). */
export function isHostShadowed(skill: Pick<Skill, 'name' | 'source'>, host: HostName, hostNames: ReadonlySet<string>): boolean {
  return !isNativeTo(host, skill.source) && hostNames.has(skill.name);
}

/** `inner` with the hits `drop` picks left out of its searches; other methods unchanged. */
function withoutHits<T extends SkillSearcher>(inner: T, drop: (skill: Skill) => boolean): T {
  const search: SkillSearcher['search'] = async (query, request) => (await inner.search(query, request)).filter((hit) => !drop(hit.skill));
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'search') return search;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
