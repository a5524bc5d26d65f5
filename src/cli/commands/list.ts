import { type ParsedArgs, parseChoice } from '../args.js';
import { demoNote, line, loadSnapshot, printJson, reportSkipped } from '../context.js';
import type { CliIo } from '../io.js';
import { resolveSources } from '../sources.js';
import { claudeCodeFrontmatter, hostRenderer, hostSkills, listingInputs, ruledSkills } from './host-profile.js';
import { escapeForTerminal } from '../../util/escape.js';
import { isOfferedToModel } from '../../load/invocation.js';
import { HOSTS } from '../../types.js';

/** The skill_listing attachment as the model receives it; shadowed names go to stderr, so stdout is exactly the model's view. */
export async function runList(args: ParsedArgs, io: CliIo): Promise<number> {
  const sources = resolveSources(args.values, io);
  const inputs = await listingInputs(args.values, io, sources);
  const { contextWindowTokens, usage, pinned } = inputs;
  const [{ formatShadowed }, { formatSkillListing }, { renderAttachment, LISTING_HEADING }, prefetch, snapshot] = await Promise.all([
    import('../../load/index.js'),
    import('../../attachments/listing.js'),
    import('../../attachments/normalize.js'),
    import('../../prefetch/experimental.js'),
    loadSnapshot(sources),
  ]);
  const experimental = prefetch.isExperimentalSkillSearch(io.env, args.values.experimental === true ? true : undefined);
  const narrowed = new Set(prefetch.listingSkills(snapshot.skills, experimental));
  // Pinned skills (config `pin`) stay in a narrowed listing.
  const listed = snapshot.skills.filter((skill) => isOfferedToModel(skill) && (narrowed.has(skill) || (experimental && pinned.matches(skill))));
  // Over budget, the least used skills (per the hook's usage store) lose their descriptions first.
  const listing = formatSkillListing(listed, { contextWindowTokens, usage });
  const ruled = await ruledSkills(sources, snapshot.skills, { codex: args.values.all === true });

  for (const shadowed of snapshot.shadowed) line(io.stderr, formatShadowed(shadowed));
  reportSkipped(io, snapshot.diagnostics);
  const demo = demoNote(listed);
  if (demo !== '' && args.values.json !== true) line(io.stderr, `skill-search: listing ${demo}`);

  // `--host`: what that host itself sends, by its own rules, instead of the seed's listing.
  const hostRaw = args.values.host;
  if (typeof hostRaw === 'string') {
    const { wrapInSystemReminder } = await import('../../attachments/reminder.js');
    const host = parseChoice('host', hostRaw, HOSTS);
    const render = await hostRenderer(host, sources, { ...inputs, ownOnly: true });
    const own = await hostSkills(host, sources, snapshot.skills);
    const predicted = render(own, host === 'claude-code' ? await claudeCodeFrontmatter(own) : undefined);
    if (args.values.json === true) return printJson(io, { host, ...predicted });
    if (predicted.usageInstructions === true)
      line(io.stderr, `skill-search: this model's Codex adds its own "How to use skills" text after the list (not printed)`);
    if (predicted.text === '') line(io.stderr, `skill-search: ${host} lists no skills here`);
    else line(io.stdout, host === 'claude-code' ? wrapInSystemReminder(`${LISTING_HEADING}\n\n${predicted.text}`) : predicted.text);
    return 0;
  }

  if (args.values.json === true)
    return printJson(io, {
      experimental,
      budgetChars: listing.budgetChars,
      skills: listed.map((skill) => ({
        name: skill.name,
        description: skill.description,
        ...(skill.whenToUse === undefined ? {} : { whenToUse: skill.whenToUse }),
        source: skill.source,
        ...(skill.source === 'demo' ? { demo: true } : {}),
        path: skill.path,
        tokenEstimate: skill.tokenEstimate,
      })),
      shortened: listing.shortened,
      truncated: listing.truncated,
      omitted: listing.omitted,
      shadowed: snapshot.shadowed.map(({ name, winner, loser }) => ({ name, winner: winner.path, loser: loser.path })),
      ruled: ruled.map(({ skill, note }) => ({
        name: skill.name,
        path: skill.path,
        model: skill.invocation?.model !== false,
        user: skill.invocation?.user !== false,
        reason: note,
      })),
      content: listing.content,
    });
  const rendered = renderAttachment({ type: 'skill_listing', content: listing.content, skillNames: listing.skillNames });
  if (rendered === null) {
    line(io.stderr, experimental ? 'skill-search: no bundled or MCP skills to list (--experimental)' : 'skill-search: no skills to list');
  } else line(io.stdout, rendered);
  // `--all`: the skills a host rule keeps from the model (or from the user's menu), after the model's view.
  if (args.values.all === true && ruled.length > 0) {
    line(io.stdout, `\nHost rules (${ruled.length}):`);
    for (const { skill, note } of ruled) line(io.stdout, `- ${escapeForTerminal(skill.name)}: ${note} [${escapeForTerminal(skill.path)}]`);
  }
  return 0;
}
