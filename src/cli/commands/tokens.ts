import { type ParsedArgs, parseChoice } from '../args.js';
import { line, loadSnapshot, printJson } from '../context.js';
import { table } from '../format.js';
import type { CliIo } from '../io.js';
import { resolveSources } from '../sources.js';
import { claudeCodeFrontmatter, hostRenderer, listingInputs } from './host-profile.js';
import { listingCost } from '../../integrations/listing-cost.js';
import { HOSTS } from '../../types.js';

function thousands(n: number): string {
  return n.toLocaleString('en-US');
}

/** `n` with thousands separators and `word`, plural unless `n` is 1. */
function counted(n: number, word: string): string {
  return `${thousands(n)} ${word}${n === 1 ? '' : 's'}`;
}

/** What the budget cut from one side's listing, as ` (N descriptions dropped, M skills left out)`, or nothing. */
function cut({ shortened, omitted }: { readonly shortened: number; readonly omitted: number }): string {
  return shortened + omitted > 0 ? ` (${counted(shortened, 'description')} dropped, ${counted(omitted, 'skill')} left out)` : '';
}

/** The host's always-on listing with every skill up front, against it with what the host does not scan left to search. */
export async function runTokens(args: ParsedArgs, io: CliIo): Promise<number> {
  const sources = resolveSources(args.values, io, undefined, 'never');
  const hostRaw = args.values.host;
  const host = parseChoice('host', typeof hostRaw === 'string' ? hostRaw : 'claude-code', HOSTS);
  const inputs = await listingInputs(args.values, io, sources);
  const snapshot = await loadSnapshot(sources);
  const pinned = new Set(snapshot.skills.filter((skill) => inputs.pinned.matches(skill)).map((skill) => skill.name));
  // An explicit --host also renders by that host's own rules (list --host); otherwise the seed's.
  // listingCost picks each side's skills; the renderer only renders them.
  const renderer = typeof hostRaw === 'string' ? await hostRenderer(host, sources, { ...inputs, ownOnly: false }) : undefined;
  const frontmatter = renderer !== undefined && host === 'claude-code' ? await claudeCodeFrontmatter(snapshot.skills) : undefined;
  const render = renderer === undefined ? undefined : (skills: Parameters<typeof renderer>[0]) => renderer(skills, frontmatter);
  const cost = listingCost(snapshot.skills, { host, contextWindowTokens: inputs.contextWindowTokens, pinned, render });
  if (args.values.json === true) return printJson(io, cost);
  const rows = [
    ['source', 'skills', 'listed by host', 'full listing tokens'],
    ...cost.sources.map((row) => [row.source, thousands(row.skills), row.listedByHost ? 'yes' : 'no (search only)', thousands(row.fullTokens)]),
  ];
  for (const text of table(rows, [1, 2, 3])) line(io.stdout, text);
  line(io.stdout);
  const { before, after } = cost;
  line(
    io.stdout,
    `Every skill listed up front: ${counted(before.skills, 'skill')}, ${counted(before.fullTokens, 'token')} in full; ${counted(before.listingTokens, 'token')} as ${typeof hostRaw === 'string' ? `${host} renders it` : 'the default listing renders it (--host: as a host does)'} within its ${thousands(cost.budgetChars)}-${cost.budgetUnit.replace(/s$/, '')} budget${cut(before)}.`,
  );
  line(
    io.stdout,
    `Listed by ${host} with the rest deferred: ${counted(after.skills, 'skill')}${pinned.size > 0 ? ` (${pinned.size} pinned)` : ''}, ${counted(after.listingTokens, 'token')}${cut(after)}.`,
  );
  line(
    io.stdout,
    `Saved per request: ${counted(cost.savedListingTokens, 'listing token')} (${thousands(cost.savedFullTokens)} against the full descriptions).`,
  );
  return 0;
}
