/**
 * Delta tracking for skill_listing (SPEC §4): each agent (the main thread has no id) is told of a
 * name once; a file change resets every agent; a resumed conversation with a listing skips the next.
 */
import type { Skill } from '../types.js';
import { formatSkillListing, shadowByName, type SkillListingOptions } from './listing.js';
import { hasAttachment, type Message, type SkillListingAttachment } from './messages.js';
import { getOrAdd } from '../util/get-or-add.js';

/** `undefined` is the main thread. */
export type AgentId = string | undefined;

/** What {@link SkillListingTracker.follow} needs of a catalog: its `change` event. */
export interface CatalogChanges {
  on(event: 'change', listener: () => void): unknown;
  off(event: 'change', listener: () => void): unknown;
}

export interface ListingTurnOptions extends SkillListingOptions {
  readonly agentId?: AgentId;
}

export class SkillListingTracker {
  /** Invariant: a name is in an agent's set iff a listing for that agent covered it (or a suppression marked it). */
  readonly #announced = new Map<AgentId, Set<string>>();
  readonly #suppressed = new Set<AgentId>();

  /** This turn's listing of the names this agent was not told of, or `null`; names the budget shortened or left out count as told. */
  next(skills: readonly Skill[], options: ListingTurnOptions = {}): SkillListingAttachment | null {
    const { agentId, ...listingOptions } = options;
    const announced = getOrAdd(this.#announced, agentId, () => new Set<string>());
    const fresh = shadowByName(skills).filter((skill) => !announced.has(skill.name));
    for (const skill of fresh) announced.add(skill.name);
    if (this.#suppressed.delete(agentId)) return null;
    if (fresh.length === 0) return null;
    const listing = formatSkillListing(fresh, listingOptions);
    return { type: 'skill_listing', content: listing.content, skillNames: listing.skillNames, visibleNames: listing.described };
  }

  /** After a skill file changed: the next turn of every agent announces everything current. */
  reset(): void {
    this.#announced.clear();
    this.#suppressed.clear();
  }

  /** Resets on every `change` of `catalog` (a `SkillCatalog`); returns the function that stops following. */
  follow(catalog: CatalogChanges): () => void {
    const reset = (): void => this.reset();
    catalog.on('change', reset);
    return () => void catalog.off('change', reset);
  }

  /** The next `next()` for this agent records the current names as announced and returns `null`. */
  suppressNext(agentId?: AgentId): void {
    this.#suppressed.add(agentId);
  }

  /** On resume: suppress the next listing when `history` already holds one. Returns whether it did. */
  suppressIfResumed(history: readonly Message[], agentId?: AgentId): boolean {
    if (!hasAttachment(history, 'skill_listing')) return false;
    this.suppressNext(agentId);
    return true;
  }

  announced(agentId?: AgentId): ReadonlySet<string> {
    return this.#announced.get(agentId) ?? new Set();
  }
}
