import { type ParsedArgs, flagError } from '../args.js';
import { buildProgress, line, openSearchFor, printJson, reportSkipped, requireSkills, storeFile } from '../context.js';
import { formatExplanation, formatHits, round, shown, toJsonHit } from '../format.js';
import { SkillMatcher } from '../../load/skill-globs.js';
import type { Skill } from '../../types.js';
import { invocationNote } from '../../load/invocation.js';
import { plural, truncateWithEllipsis } from '../../util/text.js';
import type { CliIo } from '../io.js';
import { resolveIndexDir, resolveRetrieval, resolveSources } from '../sources.js';
import type { NothingShown } from '../../service/open-search.js';

const QUERY_CONNECT_TIMEOUT_MS = 200;
/** Longer than a hook's: a person can wait, but a stalled server should not hang the shell. */
const QUERY_REQUEST_TIMEOUT_MS = 5000;
/** A cold query's build reports progress only past this: a quick one stays as quiet as a warm query. */
const QUERY_PROGRESS_AFTER_MS = 1000;

/** `query --json` echoes a message up to this many characters; a longer one is cut (ending `…`) and its length given as `queryLength`. */
const JSON_QUERY_ECHO_CHARS = 1000;

/** `query -` reads at most this much stdin (the hook's bound); the search takes the message's start and end anyway. */
const MAX_STDIN_BYTES = 32 * 1024 * 1024;

export async function runQuery(args: ParsedArgs, io: CliIo): Promise<number> {
  // `-` alone: the message on stdin, for one longer than an argument may be (128 KiB on Linux).
  const fromStdin = args.positionals.length === 1 && args.positionals[0] === '-';
  const query = fromStdin ? await io.readStdin({ maxBytes: MAX_STDIN_BYTES }) : args.positionals.join(' ');
  if (query.trim() === '') throw flagError("'query' needs a non-empty message (see skill-search query --help)");
  const sources = resolveSources(args.values, io);
  const retrieval = resolveRetrieval(args.values, io);
  const started = performance.now();
  // The config's `never` patterns: `query` ranks such a skill, the hook and the MCP server leave it out (integrations/hosts.ts).
  const neverRules = sources.config.never.map((entry) => ({ ...entry, matcher: new SkillMatcher([entry.value]) }));
  const neverRule = (skill: Skill) => neverRules.find((rule) => rule.matcher.matches(skill));
  const [{ capQuery }, { socketPathFor }] = await Promise.all([import('../../integrations/query-cap.js'), import('../../integrations/socket-protocol.js')]);
  const indexDir = resolveIndexDir(sources, retrieval, io.env);
  const search = await openSearchFor(sources, retrieval, io, {
    server: { socketPath: socketPathFor(indexDir), connectTimeoutMs: QUERY_CONNECT_TIMEOUT_MS, requestTimeoutMs: QUERY_REQUEST_TIMEOUT_MS },
    // A cold index embeds every skill first: past a second, say so rather than sit silent.
    onProgress: await buildProgress(io, args.values, QUERY_PROGRESS_AFTER_MS),
    // A socket another user controls is never asked, and the user hears of it.
    onFallback: ({ reason, untrusted }) => {
      if (untrusted) line(io.stderr, `skill-search: ${reason}`);
    },
  });
  try {
    // Every path searches the capped query, so all answer alike.
    const { hits, via, skills, diagnostics, saveProblem, nothingShown } = await search.answer(capQuery(query), {
      explain: args.values.explain === true || undefined,
      signal: io.signal,
    });
    if (via !== 'server') {
      await requireSkills(sources, skills, diagnostics);
      reportSkipped(io, diagnostics);
    }
    if (saveProblem !== undefined) line(io.stderr, `skill-search: could not save the index in ${storeFile(io.env)} (${saveProblem}); answered from memory`);
    const none = nothingShown === undefined ? undefined : explainNone(nothingShown);
    if (args.values.json === true) {
      // `tookMs` covers opening the index too.
      const jsonHit = (hit: (typeof hits)[number]) => {
        const rule = neverRule(hit.skill);
        return { ...toJsonHit(hit), ...(rule === undefined ? {} : { never: { pattern: rule.value, from: rule.from } }) };
      };
      printJson(io, {
        ...echoed(query),
        hits: hits.map(jsonHit),
        tookMs: round(performance.now() - started, 1),
        ...(none === undefined ? {} : { nothingShown: none }),
      });
    } else if (hits.length === 0) {
      line(io.stdout, `No skill fits this message (searched ${plural(skills, 'skill')}, ${retrieval.mode}).`);
      if (none !== undefined) {
        const best =
          none.best === undefined
            ? 'no candidate matched the message'
            : `best candidate ${none.best.name}: P(fits) ${none.best.fits.toFixed(3)}, score ${none.best.score.toFixed(3)} < threshold ${none.threshold.toFixed(3)}`;
        line(io.stdout, `    P(answerable) ${none.answerable.toFixed(3)}; ${best}`);
      }
    } else {
      // How a translated message was read (the same for every hit).
      const translation = hits.find((hit) => hit.why?.translation !== undefined)?.why?.translation;
      if (translation !== undefined) line(io.stdout, `Read as ${translation.language}, searched in English as: ${translation.english}`);
      formatHits(hits).forEach((text, i) => {
        line(io.stdout, text);
        const { why, score, skill } = hits[i]!;
        // `query` finds a skill a host rule keeps from the model; the hook, MCP and listing do not offer it.
        const note = invocationNote(skill);
        if (note !== undefined) line(io.stdout, `    ${note}`);
        const rule = neverRule(skill);
        if (rule !== undefined) {
          line(io.stdout, `    never suggested by the hook or the MCP server: "${rule.value}" in never (${shown(rule.from, sources.home)})`);
        }
        if (why !== undefined) for (const detail of formatExplanation(why, score)) line(io.stdout, detail);
      });
    }
    return 0;
  } finally {
    await search.close();
  }
}

/** `--explain` on an empty answer, rounded: P(answerable), the threshold, and the best candidate that missed it. */
function explainNone(explained: NothingShown) {
  const best = explained.hits[0];
  return {
    answerable: round(explained.answerable, 4),
    threshold: round(explained.threshold, 4),
    ...(best === undefined ? {} : { best: { name: best.name, score: round(best.score, 4), fits: round(best.fits, 4) } }),
  };
}

/** The message as `query --json` echoes it: whole, or cut with its length beside it (a 130 KB message is not printed back whole). */
function echoed(query: string): { readonly query: string; readonly queryLength?: number } {
  if (query.length <= JSON_QUERY_ECHO_CHARS) return { query };
  return { query: truncateWithEllipsis(query, JSON_QUERY_ECHO_CHARS), queryLength: query.length };
}
