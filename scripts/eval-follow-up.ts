/**
 * Follow-up prompts searched with the conversation (src/integrations/follow-up.ts): multi-turn
 * requests (eval/follow-up/requests.jsonl: the earlier user turns, the follow-up, the skills that
 * fit) over the library of ../shared/eval/library, read at run time (skipped when absent).
 * For each request, hit@1 and hit@5 of
 *   - `prompt`: the follow-up searched alone (what the hook did before),
 *   - `hook`: as the hook searches it now (with the turns, weighted below the prompt, when
 *     `isFollowUp` says it is one; alone otherwise),
 *   - `turns+prompt`: the conversation query alone (no weighting), for reference;
 * ranked (abstention off) and shown (abstention on, as the hook applies it).
 *
 *   npx tsx scripts/eval-follow-up.ts [--mode hybrid] [--model use-lite] [--per-query]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { CONVERSATION_WEIGHT, conversationQuery, isFollowUp, withConversation } from '../src/integrations/follow-up.js';
import { SkillSearchEngine } from '../src/search/index.js';
import type { SearchHit, SearchMode, SkillSearcher } from '../src/types.js';
import { EVAL_DIR, evalIndexDir, librarySkills } from './eval-suites.js';

const REQUESTS = join(import.meta.dirname, '..', 'eval', 'follow-up', 'requests.jsonl');

const { values } = parseArgs({
  strict: true,
  options: {
    mode: { type: 'string', default: 'hybrid' },
    model: { type: 'string', default: 'use-lite' },
    'per-query': { type: 'boolean', default: false },
    /** The conversation's weight against the prompt's 1 (default: the hook's). */
    weight: { type: 'string' },
    /** `dev` (odd ids), `test` (even ids) or `all`. */
    split: { type: 'string', default: 'all' },
  },
});

interface Request {
  readonly id: string;
  readonly turns: readonly string[];
  readonly query: string;
  readonly relevant: readonly string[];
}

function readRequests(): Request[] {
  return readFileSync(REQUESTS, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const value = JSON.parse(line) as Partial<Request>;
      if (typeof value.id !== 'string' || typeof value.query !== 'string' || !Array.isArray(value.turns) || !Array.isArray(value.relevant)) {
        throw new Error(`${REQUESTS}:${i + 1}: expected {id, turns, query, relevant}`);
      }
      return value as Request;
    });
}

type Variant = 'prompt' | 'hook' | 'turns+prompt';
const VARIANTS: readonly Variant[] = ['prompt', 'hook', 'turns+prompt'];

function searcherFor(variant: Variant, engine: SkillSearcher, request: Request): { searcher: SkillSearcher; query: string } {
  if (variant === 'prompt') return { searcher: engine, query: request.query };
  if (variant === 'turns+prompt') return { searcher: engine, query: conversationQuery(request.turns, request.query) };
  const weight = values.weight === undefined ? CONVERSATION_WEIGHT : Number(values.weight);
  return { searcher: isFollowUp(request.query) ? withConversation(engine, request.query, request.turns, { weight }) : engine, query: request.query };
}

/** The split rule: an odd id is in `dev` (the rule and the weight were chosen on it), an even one in `test`. */
function splitOf(id: string): 'dev' | 'test' {
  return Number(/(\d+)$/.exec(id)?.[1] ?? 0) % 2 === 0 ? 'test' : 'dev';
}

const rankOf = (hits: readonly SearchHit[], relevant: readonly string[]) => hits.findIndex((hit) => relevant.includes(hit.skill.name));

async function main(): Promise<void> {
  if (!existsSync(join(EVAL_DIR, 'library'))) {
    console.error(`${EVAL_DIR}/library not found; skipped`);
    return;
  }
  const skills = librarySkills();
  const embedder = resolveEmbedder(values.model);
  const engine = await SkillSearchEngine.open({ embedder, indexDir: evalIndexDir('follow-up', embedder), queryCacheSize: 0 });
  await engine.sync(skills);
  const requests = readRequests().filter((request) => values.split === 'all' || splitOf(request.id) === values.split);
  const mode = values.mode as SearchMode;
  const totals = new Map<string, { at1: number; at5: number }>(
    VARIANTS.flatMap((variant) => ['ranked', 'shown'].map((kind) => [`${variant}/${kind}`, { at1: 0, at5: 0 }])),
  );
  const perQuery: string[] = [];
  for (const request of requests) {
    const cells: string[] = [];
    for (const variant of VARIANTS) {
      const { searcher, query } = searcherFor(variant, engine, request);
      for (const [kind, abstain] of [
        ['ranked', false],
        ['shown', true],
      ] as const) {
        const rank = rankOf(await searcher.search(query, { k: 10, mode, abstain }), request.relevant);
        const total = totals.get(`${variant}/${kind}`)!;
        if (rank === 0) total.at1 += 1;
        if (rank >= 0 && rank < 5) total.at5 += 1;
        if (kind === 'ranked') cells.push(`${variant}: ${rank < 0 ? '-' : rank + 1}`);
      }
    }
    perQuery.push(`${request.id} ${isFollowUp(request.query) ? 'follow-up' : 'alone    '} ${cells.join('  ')}  ${JSON.stringify(request.query)}`);
  }
  await engine.close();
  const n = requests.length;
  const followUps = requests.filter((request) => isFollowUp(request.query)).length;
  console.log(`split ${values.split}, conversation weight ${values.weight ?? CONVERSATION_WEIGHT}`);
  console.log(`${n} multi-turn requests (${followUps} follow-ups by the rule), ${skills.length} skills, mode ${mode}, model ${embedder.id}`);
  console.log('| searched as | ranked hit@1 | ranked hit@5 | shown hit@1 | shown hit@5 |\n|---|---|---|---|---|');
  for (const variant of VARIANTS) {
    const ranked = totals.get(`${variant}/ranked`)!;
    const shown = totals.get(`${variant}/shown`)!;
    console.log(
      `| ${variant} | ${(ranked.at1 / n).toFixed(3)} | ${(ranked.at5 / n).toFixed(3)} | ${(shown.at1 / n).toFixed(3)} | ${(shown.at5 / n).toFixed(3)} |`,
    );
  }
  if (values['per-query']) for (const line of perQuery) console.log(line);
}

await main();
