/**
 * What a host's always-on skill listing costs per source: "before" lists every skill a user has,
 * "after" only what the host scans itself plus pinned skills. Tokens: characters / 4.
 */
import type { HostListing } from '../attachments/host-listing.js';
import { formatSkillLine, formatSkillListing } from '../attachments/listing.js';
import { offeredSkills } from '../load/invocation.js';
import { estimateTokens } from '../load/skill.js';
import type { HostName, LoadedFrom, Skill } from '../types.js';
import { isNativeTo } from './hosts.js';
import { getOrAdd } from '../util/get-or-add.js';

/** `listedByHost`: the host lists this source by itself; `fullTokens`: every line in full, with no budget. */
interface SourceCost {
  readonly source: LoadedFrom;
  readonly skills: number;
  readonly listedByHost: boolean;
  readonly fullTokens: number;
}

/** `listingTokens`: the listing rendered within the budget. */
interface ListingSide {
  readonly skills: number;
  readonly fullTokens: number;
  readonly listingTokens: number;
  readonly shortened: number;
  readonly omitted: number;
}

export interface ListingCost {
  readonly host: HostName;
  /** The listing's budget, in `budgetUnit`s (the name is older than host budgets in columns or tokens). */
  readonly budgetChars: number;
  readonly budgetUnit: HostListing['budget']['unit'];
  readonly sources: readonly SourceCost[];
  readonly before: ListingSide;
  readonly after: ListingSide;
  readonly savedListingTokens: number;
  readonly savedFullTokens: number;
}

/** A listing rendered within its budget, by the seed's rules or a host's. */
type RenderedListing = Pick<HostListing, 'text' | 'shortened' | 'omitted' | 'budget'>;

export interface ListingCostOptions {
  readonly host: HostName;
  readonly contextWindowTokens?: number | undefined;
  /** Names kept in the listing whatever their source. */
  readonly pinned?: ReadonlySet<string>;
  /** Renders a listing (a host's profile). @default the seed's rules (`formatSkillListing`) */
  readonly render?: ((skills: readonly Skill[]) => RenderedListing) | undefined;
}

function seedListing(contextWindowTokens: number | undefined): (skills: readonly Skill[]) => RenderedListing {
  return (skills) => {
    const listing = formatSkillListing(skills, { contextWindowTokens });
    return { text: listing.content, shortened: listing.shortened, omitted: listing.omitted, budget: { unit: 'characters', limit: listing.budgetChars } };
  };
}

function fullTokens(skills: readonly Skill[]): number {
  return skills.reduce((sum, skill) => sum + estimateTokens(`${formatSkillLine(skill)}\n`), 0);
}

function side(
  skills: readonly Skill[],
  render: (skills: readonly Skill[]) => RenderedListing,
): ListingSide & { budgetChars: number; budgetUnit: HostListing['budget']['unit'] } {
  const listing = render(skills);
  return {
    skills: skills.length,
    fullTokens: fullTokens(skills),
    listingTokens: estimateTokens(listing.text),
    shortened: listing.shortened.length,
    omitted: listing.omitted.length,
    budgetChars: listing.budget.limit,
    budgetUnit: listing.budget.unit,
  };
}

export function listingCost(catalog: readonly Skill[], options: ListingCostOptions): ListingCost {
  // The demo catalogue is no host's and never listed, nor is a skill the host keeps from the model.
  const skills = offeredSkills(catalog).filter((skill) => skill.source !== 'demo');
  const pinned = options.pinned ?? new Set<string>();
  const listed = skills.filter((skill) => isNativeTo(options.host, skill.source) || pinned.has(skill.name));
  const bySource = new Map<LoadedFrom, Skill[]>();
  for (const skill of skills) getOrAdd(bySource, skill.source, () => []).push(skill);
  const sources = [...bySource].map(([source, group]) => ({
    source,
    skills: group.length,
    listedByHost: isNativeTo(options.host, source),
    fullTokens: fullTokens(group),
  }));
  const render = options.render ?? seedListing(options.contextWindowTokens);
  const { budgetChars, budgetUnit, ...before } = side(skills, render);
  const { budgetChars: _same, budgetUnit: _unit, ...after } = side(listed, render);
  return {
    host: options.host,
    budgetChars,
    budgetUnit,
    sources,
    before,
    after,
    savedListingTokens: before.listingTokens - after.listingTokens,
    savedFullTokens: before.fullTokens - after.fullTokens,
  };
}
