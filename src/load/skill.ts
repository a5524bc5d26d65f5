import { sha256Hex } from '../util/hash.js';
import type { Diagnostic, LoadedFrom, Skill } from '../types.js';

/** Limits on what one skill may carry into a conversation: anything over a cap is cut and reported (`too-large`). */
export interface SkillLimits {
  /** Longest name accepted, in characters. Longer names are rejected (`bad-field`). */
  readonly maxNameLength: number;
  /** `description` and `whenToUse` are each cut to this many characters. */
  readonly maxDescriptionChars: number;
  /** The body is cut to this many UTF-8 bytes. */
  readonly maxBodyBytes: number;
  /** Frontmatter `hooks` longer than this as JSON (YAML aliases counted once per use) are dropped (`too-large`). */
  readonly maxHooksJsonChars: number;
}

export const DEFAULT_SKILL_LIMITS: SkillLimits = Object.freeze({
  maxNameLength: 128,
  maxDescriptionChars: 4096,
  maxBodyBytes: 1024 * 1024,
  maxHooksJsonChars: 64 * 1024,
});

/** Where a skill is being loaded from: everything about it that is not in the file. */
export interface SkillOrigin {
  readonly path: string;
  readonly source: LoadedFrom;
  readonly rank: number;
  /** Defaults to the name. */
  readonly id?: string;
}

/** What a skill file (or an MCP server) says of a skill. */
export type SkillFields = Pick<Skill, 'name' | 'description' | 'whenToUse' | 'whenToUseKey' | 'keywords' | 'effort' | 'hooks' | 'invocation' | 'body'>;

/** The text a skill is indexed and embedded by; its sha256 is the embedding cache key. */
export function indexedText(skill: { name: string; description: string; whenToUse?: string | undefined }): string {
  return `${skill.name}\n${skill.description}\n${skill.whenToUse ?? ''}`;
}

/** A body's first paragraph on one line (a heading's `#` marks dropped): as Claude Code, the description of a file without one. */
export function firstParagraph(body: string): string {
  const lines: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const text = line.trim();
    if (text === '') {
      if (lines.length > 0) break;
      continue;
    }
    lines.push(lines.length === 0 ? text.replace(/^#{1,6}\s+/, '') : text);
  }
  return lines.join(' ');
}

/** ≈ 4 characters per token, the estimate the article's system uses. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function buildSkill(fields: SkillFields, origin: SkillOrigin): Skill {
  const text = indexedText(fields);
  const skill: Skill = {
    name: fields.name,
    description: fields.description,
    ...(fields.whenToUse === undefined ? {} : { whenToUse: fields.whenToUse }),
    ...(fields.whenToUse === undefined || fields.whenToUseKey === undefined ? {} : { whenToUseKey: fields.whenToUseKey }),
    ...(fields.keywords === undefined || fields.keywords.length === 0 ? {} : { keywords: Object.freeze([...fields.keywords]) }),
    ...(fields.effort === undefined ? {} : { effort: fields.effort }),
    ...(fields.hooks === undefined ? {} : { hooks: fields.hooks }),
    ...(fields.invocation === undefined ? {} : { invocation: fields.invocation }),
    source: origin.source,
    rank: origin.rank,
    path: origin.path,
    id: origin.id ?? fields.name,
    body: fields.body,
    tokenEstimate: estimateTokens(text),
    contentHash: sha256Hex(text),
  };
  return Object.freeze(skill);
}

// C0/C1 controls, DEL and the Unicode line/paragraph separators could break a listing line or smuggle text into the prompt.
const FORBIDDEN_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** A JSON-style quoted string with every control or line-breaking character escaped, for one-line messages. */
function quote(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// Angle brackets (names are shown inside tags) and invisible format characters (bidi, zero-width, soft hyphen), after NFKC (`＜` is `<`).
const UNSHOWABLE_IN_NAME = /[<>\p{Cf}]/u;

/** Why `name` cannot be a skill name, or undefined when it can. */
export function nameProblem(name: string, limits: SkillLimits): string | undefined {
  if (name.length === 0) return 'name is empty';
  if (FORBIDDEN_IN_NAME.test(name)) return `name ${quote(name.slice(0, 80))} contains a newline or control character`;
  if (UNSHOWABLE_IN_NAME.test(name.normalize('NFKC'))) {
    return `name ${quote(name.slice(0, 80))} contains \`<\`, \`>\` or an invisible formatting character (bidi, zero-width, soft hyphen)`;
  }
  if (name.length > limits.maxNameLength) return `name is ${name.length} characters long; the limit is ${limits.maxNameLength}`;
  return undefined;
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes on a character boundary. */
export function capUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  return bytes.subarray(0, utf8Boundary(bytes, maxBytes)).toString('utf8');
}

/** The largest index ≤ `end` that does not fall inside a multi-byte UTF-8 sequence. */
export function utf8Boundary(bytes: Uint8Array, end: number): number {
  let cut = Math.min(end, bytes.length);
  if (cut === bytes.length) return cut;
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  return cut;
}

export function diagnostic(code: Diagnostic['code'], path: string, message: string, severity: Diagnostic['severity'] = 'error'): Diagnostic {
  return Object.freeze({ code, path, message, severity });
}
