/**
 * The exact-name fast path: a query that names a skill gets that skill first, whatever the
 * rankers think. Recognised forms:
 *
 * - a slash command: `/pdf`, `/pdf extract the tables`;
 * - the whole query is a name: `pdf`, `Systematic Debugging` (case, spaces, `-`, `_` ignored);
 * - a name next to the word skill/tool/command: "use the pdf skill", "the skill pdf";
 * - a *distinctive* name verbatim anywhere: one with a separator or inner capital
 *   (`systematic-debugging`, `snake_case`, `getWeather`), in backticks, or quoted.
 *
 * A plain dictionary word ("calculator", "now") mentioned in passing is not enough: chit-chat
 * such as "what time is it now" must not summon the skill called `now`.
 */

/** Canonical form for name comparison: lowercase, runs of space / `-` / `_` become `-`. */
export function normalizeName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '-');
}

const SKILL_WORD = /^(?:skill|skills|tool|tools|command)$/i;
const TOKEN = /[`"'“”‘’]?[\p{L}\p{N}][\p{L}\p{N}:_.-]*[\p{L}\p{N}][`"'“”‘’]?|[`"'“”‘’]?[\p{L}\p{N}][`"'“”‘’]?/gu;
const QUOTED = /^[`"'“”‘’](.+)[`"'“”‘’]$/u;
const DISTINCTIVE = /[-_:]|\p{Ll}\p{Lu}/u;

/** Ids of the skills the query names, in the order they are named (no duplicates); `lookup` maps a {@link normalizeName}d name to ids. */
export function findNamedSkills(query: string, lookup: (normalized: string) => readonly string[] | undefined): string[] {
  const found: string[] = [];
  const add = (candidate: string): boolean => {
    const ids = lookup(normalizeName(candidate));
    if (ids === undefined || ids.length === 0) return false;
    for (const id of ids) if (!found.includes(id)) found.push(id);
    return true;
  };

  const trimmed = query.trim();
  if (trimmed === '') return found;
  const slash = /^\/([^\s/]+)/.exec(trimmed);
  if (slash && add(slash[1]!)) return found;
  if (add(trimmed.replace(/[.!?]+$/, ''))) return found;

  const tokens = [...trimmed.matchAll(TOKEN)].map((match) => match[0]);
  for (let i = 0; i < tokens.length; i += 1) {
    const raw = tokens[i]!;
    const quoted = QUOTED.exec(raw);
    const bare = quoted ? quoted[1]! : raw.replace(/[`"'“”‘’]/g, '');
    if (SKILL_WORD.test(bare)) continue;
    const nextToSkillWord =
      SKILL_WORD.test((tokens[i + 1] ?? '').replace(/[`"'“”‘’]/g, '')) || SKILL_WORD.test((tokens[i - 1] ?? '').replace(/[`"'“”‘’]/g, ''));
    if (quoted || nextToSkillWord || DISTINCTIVE.test(bare)) add(bare);
  }
  return found;
}
