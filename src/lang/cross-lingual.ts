import { throwIfAborted } from '../errors.js';
import type { CrossLingualKnobs } from './options.js';
import type { GroupedTerms } from '../lexical/lexical-index.js';
import type { Skill } from '../types.js';
import { detectLanguage, hasHanOrKana, LANGUAGES, majority, type Language } from './detect.js';
import { defaultDictionaryDir, sharedDictionary, type Dictionary } from './dictionary.js';
import { catalogWords, LoanwordMatcher } from './loanwords.js';
import { translate } from './translate.js';
import { CatalogueVocabulary } from './vocabulary.js';
import { splitWords } from '../lexical/tokenize.js';
import { parseJsonQuietly } from '../util/json-file.js';

export interface CrossLingualOptions extends CrossLingualKnobs {
  /** The encoder reads the original language itself: the dense side gets no translation. @default false */
  readonly multilingual?: boolean;
  /** Where each CJK skill's language and glosses are kept by content hash across processes. @default in memory only */
  readonly cache?: GlossCache;
}

/** Per content hash, text recorded under a scope (the settings it depends on): `EntryStore.glosses`. */
export interface GlossCache {
  glosses(scope: string): Map<string, string>;
  /** May settle later (a writer waiting for another process's write). */
  putGlosses(scope: string, entries: ReadonlyMap<string, string>): void | Promise<void>;
}

const LANGUAGE_CACHE_VERSION = 2;

/** A query as each ranker should read it. */
export interface RoutedQuery {
  readonly language: Language;
  /** Text for BM25 (the query itself, or its English rendering with Latin runs kept). */
  readonly lexical: string;
  /** Term weights and word groups of `lexical`, when it is a translation. */
  readonly terms?: GroupedTerms;
  /** Text for the encoder. */
  readonly dense: string;
  /** The request at its written length (one gloss per translated word), for choices that depend on its length. */
  readonly measure: string;
}

/** English text added to a skill written in Chinese or Japanese. */
export interface SkillGlosses {
  /** An extra lexical field: every kept gloss. */
  readonly lexical: string;
  /** Appended to the encoder's text; absent for a multilingual encoder. */
  readonly dense?: string;
}

/** Languages the dictionary translates. */
const TRANSLATED: ReadonlySet<Language> = new Set(['zh', 'ja']);

/**
 * The language step in front of both rankers: English queries pass one regular-expression test, no dictionary loaded;
 * a Chinese or Japanese query over a catalog in another language is rendered in English for BM25 and (unless the
 * encoder is multilingual) the encoder; Chinese and Japanese skills get English glosses at index time.
 */
export class CrossLingual {
  readonly #enabled: boolean;
  readonly #dir: string;
  readonly #multilingual: boolean;
  /** Counted from {@link #languages} when first read after a {@link prepare}. */
  #catalog: Language | undefined = 'en';
  #dictionary: Dictionary | undefined;
  /** contentHash → language of the catalog's skills with CJK text (the others are English). */
  #languages = new Map<string, Language>();
  /** The catalog's skills (from {@link prepare}), for the loanword vocabulary. */
  #skills: readonly Skill[] = [];
  /** Built on the first Japanese query with katakana; dropped when the catalog changes. */
  #loanwords: LoanwordMatcher | undefined;
  /** Built on the first translated query; dropped when the catalog changes. */
  #vocabulary: CatalogueVocabulary | undefined;
  /** contentHash → glosses, for the skills in the current catalog that have any. */
  #glosses = new Map<string, SkillGlosses | null>();
  /** Where the results are kept (read on the first prepare), or undefined. */
  readonly #cache: GlossCache | undefined;
  #cacheRead = false;
  readonly #glossWeights: readonly number[] | undefined;
  #glossesEpoch = 0;
  /** Skill objects already found without CJK text (skills are immutable), so a re-sync tests each once. */
  readonly #plain = new WeakSet<Skill>();

  constructor(options: CrossLingualOptions = {}) {
    this.#enabled = options.enabled !== false;
    this.#dir = options.dictionaryDir ?? defaultDictionaryDir();
    this.#multilingual = options.multilingual === true;
    this.#glossWeights = options.glossWeights;
    this.#cache = options.cache;
  }

  /** The majority language of the catalog's skill text (set by {@link prepare}; counted on first use). */
  get catalogLanguage(): Language {
    this.#catalog ??= majority(this.#skills.map((skill) => this.#languages.get(skill.contentHash) ?? 'en'));
    return this.#catalog;
  }

  /** Detects new skills' languages and glosses the Chinese and Japanese ones (loading the dictionary only for those); call before indexing. */
  async prepare(skills: Iterable<Skill>, signal?: AbortSignal): Promise<void> {
    this.#readCache();
    const list = [...skills];
    this.#skills = list;
    this.#loanwords = undefined;
    this.#vocabulary = undefined;
    this.#catalog = undefined;
    // Only skills with CJK text are remembered.
    const languages = new Map<string, Language>();
    const foreign: Skill[] = [];
    let detected = 0;
    for (const skill of list) {
      if (this.#plain.has(skill)) continue;
      let language = this.#languages.get(skill.contentHash);
      if (language === undefined) {
        const text = skillText(skill);
        if (!CJK.test(text)) {
          this.#plain.add(skill);
          continue;
        }
        language = detectLanguage(text);
        detected += 1;
      }
      languages.set(skill.contentHash, language);
      if (TRANSLATED.has(language)) foreign.push(skill);
    }
    const dropped = this.#languages.size + detected - languages.size;
    this.#languages = languages;
    if (!this.#enabled) return;
    const next = new Map<string, SkillGlosses | null>();
    const pending: Skill[] = [];
    for (const skill of foreign) {
      const done = this.#glosses.get(skill.contentHash);
      if (done === undefined) pending.push(skill);
      else next.set(skill.contentHash, done);
    }
    const dictionary = pending.length === 0 ? undefined : await this.#load();
    throwIfAborted(signal);
    if (pending.length > 0) this.#glossesEpoch += 1;
    if (pending.length > 0 && dictionary === undefined) {
      this.#glosses = new Map();
      return;
    }
    for (const skill of pending) {
      const loanwords = languages.get(skill.contentHash) === 'ja' ? this.#loanwordMatcher() : undefined;
      next.set(skill.contentHash, this.#gloss(skill, dictionary!, loanwords));
    }
    this.#glosses = next;
    if (detected > 0 || dropped > 0 || pending.length > 0) await this.#writeCache();
  }

  /**
   * Glosses a few changed `skills` as {@link prepare} of the whole catalog would, when their glosses cannot depend on
   * it (a Japanese skill's do through katakana loanwords long enough to match). False when one can, or without a
   * dictionary: prepare the whole catalog then. Writes no cache; for an engine that has synced nothing.
   */
  async prepareAlone(skills: readonly Skill[], signal?: AbortSignal): Promise<boolean> {
    const foreign = skills.filter((skill) => !this.#plain.has(skill) && CJK.test(skillText(skill)));
    if (foreign.length === 0) return true;
    this.#readCache();
    const pending: [Skill, Language][] = [];
    for (const skill of foreign) {
      const language = this.#languages.get(skill.contentHash) ?? detectLanguage(skillText(skill));
      if (this.#enabled && TRANSLATED.has(language) && !this.#glosses.has(skill.contentHash)) pending.push([skill, language]);
    }
    if (pending.length === 0) return true;
    const dictionary = await this.#load();
    throwIfAborted(signal);
    if (dictionary === undefined) return false;
    const glossed: [string, SkillGlosses | null][] = [];
    for (const [skill, language] of pending) {
      // An empty vocabulary counts the words the catalog's would have matched.
      const loanwords = language === 'ja' ? new LoanwordMatcher(new Map()) : undefined;
      const glosses = this.#gloss(skill, dictionary, loanwords);
      if (loanwords !== undefined && loanwords.lookups > 0) return false;
      glossed.push([skill.contentHash, glosses]);
    }
    for (const [hash, glosses] of glossed) this.#glosses.set(hash, glosses);
    return true;
  }

  /** `skill`'s glosses (null: none), its Japanese loanwords matched by `loanwords` when given. */
  #gloss(skill: Skill, dictionary: Dictionary, loanwords: LoanwordMatcher | undefined): SkillGlosses | null {
    const { lexical, dense } = translate(skillText(skill), dictionary, loanwords === undefined ? {} : { loanwords, japanese: true });
    return lexical.trim() === '' ? null : this.#multilingual ? { lexical } : { lexical, dense };
  }

  /** Results hold for this cache version, dictionary and encoder kind only. */
  #scope(): string {
    return JSON.stringify([LANGUAGE_CACHE_VERSION, this.#dir, this.#multilingual]);
  }

  /** Seeds the per-skill results from the cache once, skipping unreadable entries. */
  #readCache(): void {
    if (this.#cacheRead || this.#cache === undefined) return;
    this.#cacheRead = true;
    for (const [hash, text] of this.#cache.glosses(this.#scope())) {
      const entry = parseJsonQuietly(text);
      if (!Array.isArray(entry) || !(LANGUAGES as readonly unknown[]).includes(entry[0]) || typeof entry[1] !== 'string' || typeof entry[2] !== 'string')
        continue;
      const [language, lexical, dense] = entry as [Language, string, string];
      this.#languages.set(hash, language);
      if (!TRANSLATED.has(language) || !this.#enabled) continue;
      this.#glosses.set(hash, lexical === '' ? null : this.#multilingual ? { lexical } : { lexical, dense });
    }
  }

  /** Saves the current catalog's CJK skills as `[language, lexical glosses, dense glosses]` ('' = none). */
  async #writeCache(): Promise<void> {
    if (this.#cache === undefined) return;
    const entries = new Map<string, string>();
    for (const [hash, language] of this.#languages) {
      const glosses = this.#glosses.get(hash);
      entries.set(hash, JSON.stringify([language, glosses?.lexical ?? '', glosses?.dense ?? '']));
    }
    await this.#cache.putGlosses(this.#scope(), entries);
  }

  /** Changes when a {@link prepare} may have changed a known skill's glosses, so a caller may keep what it derived otherwise. */
  get glossesEpoch(): number {
    return this.#glossesEpoch;
  }

  /** The English glosses of a skill written in Chinese or Japanese (after {@link prepare}). */
  glossesOf(skill: Skill): SkillGlosses | undefined {
    return this.#glosses.size === 0 ? undefined : (this.#glosses.get(skill.contentHash) ?? undefined);
  }

  /** How each ranker should read `query`. Synchronous (no promise, no dictionary) when nothing is translated. */
  route(query: string, signal?: AbortSignal): RoutedQuery | Promise<RoutedQuery> {
    if (!this.#enabled || !hasHanOrKana(query)) return { language: 'en', lexical: query, dense: query, measure: query };
    const language = detectLanguage(query);
    if (!TRANSLATED.has(language) || language === this.catalogLanguage) return { language, lexical: query, dense: query, measure: query };
    return this.#translate(query, language, signal);
  }

  async #translate(query: string, language: Language, signal?: AbortSignal): Promise<RoutedQuery> {
    const dictionary = this.#dictionary ?? (await this.#load());
    throwIfAborted(signal);
    if (dictionary === undefined) return { language, lexical: query, dense: query, measure: query };
    const rendering = translate(query, dictionary, {
      ...(language === 'ja' && { loanwords: this.#loanwordMatcher(), japanese: true }),
      ...(this.#glossWeights !== undefined && { glossWeights: this.#glossWeights }),
      vocabulary: this.#catalogueVocabulary(),
    });
    if (rendering.lexical.trim() === '') return { language, lexical: query, dense: query, measure: query };
    return { language, lexical: rendering.lexical, terms: rendering.terms, dense: this.#multilingual ? query : rendering.dense, measure: rendering.dense };
  }

  /** The catalog's English search terms and the skills using each, to choose each translated word's glosses by. */
  #catalogueVocabulary(): CatalogueVocabulary {
    this.#vocabulary ??= new CatalogueVocabulary(this.#skills.map((skill) => `${skill.name.replace(/[-_:]/g, ' ')}\n${skillText(skill)}`));
    return this.#vocabulary;
  }

  /** English words of the catalog by how many skills use them, and their word pairs, matched against katakana. */
  #loanwordMatcher(): LoanwordMatcher {
    if (this.#loanwords === undefined) {
      // Pairs too: Japanese writes a two-word term as one katakana word (リリースノート); counted only when asked.
      const { frequencies, followers } = catalogWords(this.#skills.map((skill) => latinWords(`${skill.name} ${skillText(skill)}`)));
      this.#loanwords = new LoanwordMatcher(frequencies, followers);
    }
    return this.#loanwords;
  }

  /** The shared dictionary; undefined when it cannot load (searches then go on untranslated; the next call tries again). */
  async #load(): Promise<Dictionary | undefined> {
    try {
      this.#dictionary ??= await sharedDictionary(this.#dir);
    } catch {
      // Left undefined.
    }
    return this.#dictionary;
  }
}

/** Han, kana or hangul: text without any is English to {@link detectLanguage}. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/u;

/** The Latin-script words {@link splitWords} finds in `text`, its CJK runs left out. */
function latinWords(text: string): string[] {
  return CJK.test(text) ? text.split(CJK_RUNS).flatMap(splitWords) : splitWords(text);
}

function skillText(skill: Skill): string {
  return skill.whenToUse === undefined ? skill.description : `${skill.description}\n${skill.whenToUse}`;
}
