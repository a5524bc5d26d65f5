import { createHash } from 'node:crypto';
import type { Skill } from '../types.js';

/** Bump when {@link embeddingText} changes: it is part of the store's model id, so old vectors are not mixed in. */
export const EMBEDDING_TEXT_VERSION = 't2';

/** `pdf-extract` / `getWeatherInfo` / `snake_case` → words a sentence encoder knows. */
export function humanizeName(name: string): string {
  return name
    .replace(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})/gu, ' ')
    .replace(/[-_:/.]+/g, ' ')
    .trim();
}

/** What the dense model reads for a skill: its name as words, description, when to use it. */
export function embeddingText(skill: Skill): string {
  const parts = [`${humanizeName(skill.name)}: ${skill.description}`];
  if (skill.whenToUse !== undefined && skill.whenToUse.trim() !== '') parts.push(skill.whenToUse);
  return parts.join('\n');
}

/** {@link embeddingText} and the English rendering of a skill written in another language (`src/lang/`). */
export function glossedEmbeddingText(skill: Skill, glosses: string | undefined): string {
  const text = embeddingText(skill);
  return glosses === undefined || glosses.trim() === '' ? text : `${text}\n${glosses}`;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Cache key of a skill's vector: its content hash (the text version is in the model id), hashed
 * once more when not sha256 hex, since the store keeps keys as 32 raw bytes.
 */
export function vectorKey(skill: Skill): string {
  return SHA256_HEX.test(skill.contentHash) ? skill.contentHash : createHash('sha256').update(skill.contentHash).digest('hex');
}
