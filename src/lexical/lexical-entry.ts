import { createHash } from 'node:crypto';
import { LEXICAL_FIELDS, type Skill } from '../types.js';
import { bodyText } from './body-text.js';
import { tokenize } from './tokenize.js';

/** The indexed fields, numbered by their position here (field 0 is `name`). */
export const INDEXED_FIELDS = LEXICAL_FIELDS;
export const FIELD_COUNT = INDEXED_FIELDS.length;

/** What the lexical index holds of one skill, computed from the skill alone, so the in-memory index and the store's tables tokenise alike. */
export interface LexicalEntry {
  /** {@link lexicalKey}: equal keys mean equal entries. */
  readonly key: string;
  /** Per field ({@link INDEXED_FIELDS} order): the number of distinct tokens, BM25's field length (MiniSearch's convention). */
  readonly lengths: readonly number[];
  /** Per field: each term → how often it occurs there (its term frequency), in first-occurrence order. */
  readonly terms: readonly ReadonlyMap<string, number>[];
}

/** The parts of a skill that are indexed, by field. */
type SkillText = Pick<Skill, 'name' | 'description' | 'whenToUse' | 'keywords' | 'body' | 'contentHash'>;

/** The content key an entry is stored under: the skill's content hash, plus a digest of its keywords, body text and glosses when it has any. */
export function lexicalKey(skill: SkillText, glosses = ''): string {
  return keyOf(skill, bodyText(skill.body), glosses);
}

function keyOf(skill: SkillText, body: string, glosses: string): string {
  const extra = [skill.keywords?.join('\n') ?? '', body, glosses].join('\0');
  return extra === '\0\0' ? skill.contentHash : `${skill.contentHash}:${createHash('sha256').update(extra).digest('hex').slice(0, 32)}`;
}

/** Tokenises a skill into its {@link LexicalEntry}; `glosses`: English indexed beside a skill in another language. */
export function lexicalEntry(skill: SkillText, glosses = ''): LexicalEntry {
  const body = bodyText(skill.body);
  const texts = [skill.name, skill.whenToUse ?? '', skill.keywords?.join('\n') ?? '', skill.description, body, glosses];
  const lengths: number[] = [];
  const terms: Map<string, number>[] = [];
  for (const text of texts) {
    const counts = new Map<string, number>();
    const tokens = tokenize(text);
    for (const token of tokens) if (token !== '') counts.set(token, (counts.get(token) ?? 0) + 1);
    lengths.push(new Set(tokens).size);
    terms.push(counts);
  }
  return { key: keyOf(skill, body, glosses), lengths, terms };
}
