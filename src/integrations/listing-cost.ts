/**
 * What a host's always-on skill listing costs, per source: the measure of deferred loading.
 * "Before" lists every skill a user has (as if the library lived in the host's folders);
 * "after" lists only what the host scans itself, plus pinned skills. Tokens are the listing
 * text's characters / 4, the estimate the listing budget itself uses.
 */
import type { HostListing } from '../attachments/host-listing.js';
import { formatSkillLine, formatSkillListing } from '../attachments/listing.js';
import { offeredSkills } from '../load/invocation.js';
import { estimateTokens } from '../load/skill.js';
import type { HostName, LoadedFrom, Skill } from '../types.js';
import { isNativeTo } from './hosts.js';

export interface SourceCost {
  readonly source: LoadedFrom;
  readonly skills: number;
  /** Whether the host lists this source by itself (otherwise it is reached by search only). */
  readonly listedByHost: boolean;
  /** Tokens of this source's lines with full descriptions (no budget). */
  readonly fullTokens: number;
}

export interface ListingSide {
  readonly skills: number;
  /** Every line in full. */
  readonly fullTokens: number;
  /** The listing as rendered within the budget (descriptions dropped, skills left out as needed). */
  readonly listingTokens: number;
  readonly shortened: number;
  readonly omitted: number;
}

export interface ListingCost {
  readonly host: HostName;
  readonly budgetChars: number;
  readonly sources: readonly SourceCost[];
  readonly before: ListingSide;
  readonly after: ListingSide;
  readonly savedListingTokens: number;
  readonly savedFullTokens: number;
}

/** A listing rendered within its budget, by whichever rules: the seed's or a host's (`host-listing.ts`). */
export type RenderedListing = Pick<HostListing, 'text' | 'shortened' | 'omitted' | 'budget'>;

export interface ListingCostOptions {
  readonly host: HostName;
  readonly contextWindowTokens?: number | undefined;
  /** Names kept in the listing whatever their source. */
  readonly pinned?: ReadonlySet<string>;
  /**
   * Renders a listing (a host's profile, `list --host`).
   * @default the seed's rules (`formatSkillListing`)
   */
  readonly render?: ((skills: readonly Skill[]) => RenderedListing) | undefined;
}

function seedListing(contextWindowTokens: number | undefined): (skills: readonly Skill[]) => RenderedListing {
  return (skills) => {
    const listing = formatSkillListing(skills, { contextWindowTokens });
    return { text: listing.content, shortened: listing.shortened, omitted: listing.omitted, budget: { unit: 'characters', limit: listing.budgetChars } };
  };
}

function side(skills: readonly Skill[], render: (skills: readonly Skill[]) => RenderedListing): ListingSide & { budgetChars: number } {
  const listing = render(skills);
  return {
    skills: skills.length,
    fullTokens: skills.reduce((sum, skill) => sum + estimateTokens(`${formatSkillLine(skill)}\n`), 0),
    listingTokens: estimateTokens(listing.text),
    shortened: listing.shortened.length,
    omitted: listing.omitted.length,
    budgetChars: listing.budget.limit,
  };
}

export function listingCost(catalog: readonly Skill[], options: ListingCostOptions): ListingCost {
  // The demo catalogue is no host's and never listed, nor is a skill the host keeps from the model.
  const skills = offeredSkills(catalog).filter((skill) => skill.source !== 'demo');
  const pinned = options.pinned ?? new Set<string>();
  const listed = skills.filter((skill) => isNativeTo(options.host, skill.source) || pinned.has(skill.name));
  const bySource = new Map<LoadedFrom, Skill[]>();
  for (const skill of skills) bySource.set(skill.source, [...(bySource.get(skill.source) ?? []), skill]);
  const sources = [...bySource].map(([source, group]) => ({
    source,
    skills: group.length,
    listedByHost: isNativeTo(options.host, source),
    fullTokens: group.reduce((sum, skill) => sum + estimateTokens(`${formatSkillLine(skill)}\n`), 0),
  }));
  const render = options.render ?? seedListing(options.contextWindowTokens);
  const { budgetChars, ...before } = side(skills, render);
  const { budgetChars: _same, ...after } = side(listed, render);
  return {
    host: options.host,
    budgetChars,
    sources,
    before,
    after,
    savedListingTokens: before.listingTokens - after.listingTokens,
    savedFullTokens: before.fullTokens - after.fullTokens,
  };
}
