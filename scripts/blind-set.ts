/**
 * Helpers for writing a blind library request set (fixtures/eval/README.md, r12 on) without running
 * anything of the engine over it: which skills it should name, and whether its drafts keep clear of
 * the sets before it. Reads only the library index (`_index.jsonl` names and sources) and the
 * committed `fixtures/eval/*.jsonl` files.
 *
 *   npx tsx scripts/blind-set.ts pick --set library-queries-r21.jsonl
 *     the 300 skills the other sets labelled least: small-source quota first (each source's least
 *     labelled), then the rest; ties broken by fewer labels in the newest, then the second-newest
 *     r-set, then the name
 *   npx tsx scripts/blind-set.ts check --set library-queries-r21.jsonl DRAFT.jsonl
 *     every draft line at or over the overlap limit against the other sets and the other drafts
 *     (Jaccard of lower-case words, with and without punctuation split off), every draft that names
 *     a hyphenated skill as a phrase, and the length classes of answerable and no-skill lines
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { EVAL_DIR } from './eval-suites.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'eval');
/** Skills taken first from the four small sources, so a set never leaves them out. */
const SMALL_SOURCE_QUOTA: Readonly<Record<string, number>> = {
  'anthropics-skills': 6,
  'obra-superpowers': 5,
  'openai-skills': 4,
  'vercel-agent-skills': 3,
};
const OVERLAP_LIMIT = 0.45;

interface Line {
  readonly id: string;
  readonly query: string;
  readonly relevant: readonly string[];
}

const readLines = (file: string): Line[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line);

/** A one-line error naming the flag or file at fault, then exit. */
function fail(message: string): never {
  console.error(`blind-set: ${message}`);
  process.exit(1);
}

/** Each library skill name with the sources that hold it, in source order. */
function librarySources(): Map<string, string[]> {
  const root = join(EVAL_DIR, 'library');
  if (!existsSync(root)) fail(`no library at ${root}: set SKILL_SEARCH_EVAL_DIR to the shared eval folder`);
  const sources = new Map<string, string[]>();
  for (const source of readdirSync(root).sort()) {
    const index = join(root, source, '_index.jsonl');
    if (!existsSync(index)) continue;
    for (const { name } of readFileSync(index, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { name: string })) {
      sources.set(name, [...(sources.get(name) ?? []), source]);
    }
  }
  return sources;
}

/** The committed sets other than `setFile` (matched by its name, so a worktree's path cannot hide one). */
const otherSets = (setFile: string): string[] =>
  readdirSync(FIXTURES)
    .filter((file) => file.endsWith('.jsonl') && file !== basename(setFile))
    .sort();

function labelCounts(files: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of files) {
    for (const line of readLines(join(FIXTURES, file))) for (const name of line.relevant) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

const roundOf = (file: string): number => Number(/-r(\d+)\.jsonl$/.exec(file)?.[1] ?? 0);

function pick(setFile: string, size: number): void {
  const sources = librarySources();
  const others = otherSets(setFile);
  const total = labelCounts(others);
  const [newest, secondNewest] = others.filter((file) => roundOf(file) > 0).sort((a, b) => roundOf(b) - roundOf(a));
  const newestCounts = labelCounts([newest!]);
  const secondCounts = labelCounts([secondNewest!]);
  const key = (name: string): [number, number, number] => [total.get(name) ?? 0, newestCounts.get(name) ?? 0, secondCounts.get(name) ?? 0];
  const byKey = (a: string, b: string): number => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! - kb[i]!;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  const fromSmall = (name: string): boolean => sources.get(name)!.some((source) => source in SMALL_SOURCE_QUOTA);
  const chosen: string[] = [];
  for (const [source, quota] of Object.entries(SMALL_SOURCE_QUOTA)) {
    const candidates = [...sources.keys()].filter((name) => sources.get(name)!.includes(source) && !chosen.includes(name)).sort(byKey);
    chosen.push(...candidates.slice(0, quota));
  }
  const rest = [...sources.keys()].filter((name) => !fromSmall(name)).sort(byKey);
  const cut = size - chosen.length;
  chosen.push(...rest.slice(0, cut));
  const tally = (names: readonly string[], of: (name: string) => string | number): string => {
    const counts = new Map<string | number, number>();
    for (const name of names) counts.set(of(name), (counts.get(of(name)) ?? 0) + 1);
    return [...counts].map(([value, count]) => `${value}: ${count}`).join(', ');
  };
  console.error(`${sources.size} skills; counted over ${others.length} sets; ties by ${newest} then ${secondNewest}`);
  console.error(`labels over the library: ${tally([...sources.keys()].sort(byKey), (name) => total.get(name) ?? 0)}`);
  console.error(`chosen by labels: ${tally(chosen, (name) => total.get(name) ?? 0)}`);
  console.error(`chosen by source: ${tally(chosen, (name) => sources.get(name)![0]!)}`);
  console.error(`last taken ${JSON.stringify(rest[cut - 1])} ${key(rest[cut - 1]!)}; first left ${JSON.stringify(rest[cut])} ${key(rest[cut]!)}`);
  for (const name of chosen) console.log([name, sources.get(name)![0], ...key(name)].join('\t'));
}

const plainWords = (text: string): Set<string> => new Set(text.toLowerCase().split(/\s+/).filter(Boolean));
const bareWords = (text: string): Set<string> => new Set(text.toLowerCase().match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? []);
function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const lengthClass = (text: string): string => {
  const words = wordCount(text);
  return words <= 6 ? 'short' : words <= 12 ? 'medium' : words <= 40 ? 'long' : 'very long';
};

function check(setFile: string, draftFile: string): void {
  // The closest line is reported by file and id, not text, so a writer need not read the earlier sets.
  const earlier = otherSets(setFile).flatMap((file) => readLines(join(FIXTURES, file)).map((line) => ({ ...line, where: `${file}:${line.id}` })));
  if (!existsSync(draftFile)) fail(`no draft file at ${draftFile}`);
  const drafts = readLines(draftFile);
  const compared = [...earlier, ...drafts.map((line) => ({ ...line, where: `draft:${line.id}` }))].map(({ query, where }) => ({
    where,
    plain: plainWords(query),
    bare: bareWords(query),
  }));
  let over = 0;
  let highest = 0;
  drafts.forEach((draft, i) => {
    const plain = plainWords(draft.query);
    const bare = bareWords(draft.query);
    let best = { score: 0, where: '' };
    compared.forEach((other, j) => {
      if (j === earlier.length + i) return;
      const score = Math.max(jaccard(plain, other.plain), jaccard(bare, other.bare));
      if (score > best.score) best = { score, where: other.where };
    });
    highest = Math.max(highest, best.score);
    if (best.score >= OVERLAP_LIMIT) {
      over++;
      console.log(`overlap ${best.score.toFixed(3)} ${draft.id} | ${draft.query} || ${best.where}`);
    }
  });
  const hyphenated = [...librarySources().keys()].filter((name) => name.includes('-'));
  const phrase = (words: string): RegExp => new RegExp(`(?<![a-z0-9])${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![a-z0-9])`);
  const patterns = hyphenated.map((name) => ({ name, forms: [phrase(name), phrase(name.replaceAll('-', ' '))] }));
  for (const draft of drafts) {
    const text = draft.query.toLowerCase();
    for (const { name, forms } of patterns) {
      if (forms.some((form) => form.test(text))) console.log(`names ${name} ${draft.id} | ${draft.query}`);
    }
  }
  const classes = (lines: readonly Line[]): string => {
    const counts: Record<string, number> = { short: 0, medium: 0, long: 0, 'very long': 0 };
    for (const { query } of lines) counts[lengthClass(query)]!++;
    const over80 = lines.filter(({ query }) => wordCount(query) > 80).length;
    return `${Object.entries(counts)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}; over 80 words ${over80}`;
  };
  const answerable = drafts.filter((line) => line.relevant.length > 0);
  const everyday = drafts.filter((line) => line.relevant.length === 0);
  const multiLabel = answerable.filter((line) => line.relevant.length > 1).length;
  const labelled = new Set(answerable.flatMap((line) => line.relevant)).size;
  console.log(`${drafts.length} drafts against ${earlier.length} earlier lines: ${over} at ${OVERLAP_LIMIT} or above, highest ${highest.toFixed(3)}`);
  console.log(`answerable ${answerable.length} (${classes(answerable)}); no skill ${everyday.length} (${classes(everyday)})`);
  console.log(`multi-label ${multiLabel}; skills labelled ${labelled}`);
}

const { values, positionals } = parseArgs({
  strict: true,
  allowPositionals: true,
  options: { set: { type: 'string' }, size: { type: 'string', default: '300' } },
});
const [command, draft] = positionals;
const size = Number(values.size);
if (values.set === undefined) fail('--set <the new set file name, e.g. library-queries-r21.jsonl> is required');
if (!Number.isInteger(size) || size <= 0) fail(`--size: expected a positive whole number, got ${JSON.stringify(values.size)}`);
if (command === 'pick') pick(values.set, size);
else if (command === 'check' && draft !== undefined) check(values.set, draft);
else fail(`expected "pick" or "check DRAFT.jsonl", got ${JSON.stringify(positionals.join(' '))}`);
