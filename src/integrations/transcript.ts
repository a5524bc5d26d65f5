/**
 * What a hook needs from a session's transcript (JSONL), read in one pass: the skills the Skill
 * tool was called with, the compactions, and the last things the user typed. Claude Code: Skill
 * `tool_use` blocks, `{"type":"user","message":{"content"}}`, `{"type":"system","subtype":"compact_boundary"}`;
 * Codex: `{"type":"event_msg","payload":{"type":"user_message","message"}}`, `{"type":"compacted"}`.
 * Best effort: the format is the host's, so anything unexpected means "nothing known".
 */
import { open } from 'node:fs/promises';
import { parseJsonQuietly } from '../util/json-file.js';
import { READ_NONBLOCK, readBounded } from '../util/read-bounded.js';

/** Claude Code's tool name (as `SKILL_TOOL_NAME`; not imported, that module loads zod into the hook). */
const SKILL_TOOL = 'Skill';
/** The end read of a longer transcript, user turns kept (most recent last), and each one's length cut to. */
const TRANSCRIPT_DEFAULTS = Object.freeze({ maxBytes: 32 * 1024 * 1024, maxUserTurns: 3, maxTurnChars: 1000 });

export type TranscriptOptions = { readonly [K in keyof typeof TRANSCRIPT_DEFAULTS]?: number };

export interface TranscriptFacts {
  readonly invoked: ReadonlySet<string>;
  readonly compactions: number;
  /** The last user prompts, oldest first, each cut to `maxTurnChars`. */
  readonly userTurns: readonly string[];
}

const NOTHING: TranscriptFacts = Object.freeze({ invoked: new Set<string>(), compactions: 0, userTurns: Object.freeze([]) });

/** The facts of `transcriptPath`, nothing known on any problem. Linear: a line is parsed only when a substring test says it may matter. */
export async function readTranscript(transcriptPath: string | undefined, options: TranscriptOptions = {}): Promise<TranscriptFacts> {
  if (transcriptPath === undefined || transcriptPath === '') return NOTHING;
  const settings = { ...TRANSCRIPT_DEFAULTS, ...options };
  let text: string;
  try {
    text = await readTail(transcriptPath, settings.maxBytes);
  } catch {
    return NOTHING;
  }
  const lines = text.split('\n');
  const invoked = new Set<string>();
  let compactions = 0;
  for (const line of lines) {
    if (line.includes(`"${SKILL_TOOL}"`)) {
      for (const name of skillCalls(parseJsonQuietly(line))) invoked.add(name);
    }
    if ((line.includes('"compact_boundary"') || line.includes('"compacted"')) && isCompaction(parseJsonQuietly(line))) compactions += 1;
  }
  const userTurns: string[] = [];
  for (let i = lines.length - 1; i >= 0 && userTurns.length < settings.maxUserTurns; i -= 1) {
    const line = lines[i] ?? '';
    if (!line.includes('"user')) continue;
    const prompt = userPrompt(parseJsonQuietly(line));
    if (prompt !== undefined) userTurns.unshift(prompt.slice(0, settings.maxTurnChars));
  }
  return { invoked, compactions, userTurns };
}

function skillCalls(entry: unknown): string[] {
  const content = (entry as { message?: { content?: unknown } } | null | undefined)?.message?.content;
  if (!Array.isArray(content)) return [];
  const names: string[] = [];
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    const { type, name, input } = block as { type?: unknown; name?: unknown; input?: unknown };
    if (type !== 'tool_use' || name !== SKILL_TOOL || typeof input !== 'object' || input === null) continue;
    // `skill` in current Claude Code; `command` in early versions of the tool.
    const { skill, command } = input as { skill?: unknown; command?: unknown };
    const raw = typeof skill === 'string' ? skill : typeof command === 'string' ? command : undefined;
    const cleaned = raw?.trim().replace(/^\//, '');
    if (cleaned) names.push(cleaned);
  }
  return names;
}

function isCompaction(entry: unknown): boolean {
  const { type, subtype } = (entry ?? {}) as { type?: unknown; subtype?: unknown };
  return (type === 'system' && subtype === 'compact_boundary') || type === 'compacted';
}

/** A user entry the user did not type: slash-command records, command output, reminders, caveats. */
const NOT_TYPED = /^(<command-|<local-command-|<system-reminder>|<user-prompt-submit-hook>|Caveat: )/;

/** What the user typed, when `entry` is a user prompt (not a tool result, meta entry or summary). */
function userPrompt(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const record = entry as { type?: unknown; isMeta?: unknown; isCompactSummary?: unknown; message?: unknown; payload?: unknown };
  let text: string | undefined;
  if (record.type === 'user' && record.isMeta !== true && record.isCompactSummary !== true) {
    const content = (record.message as { content?: unknown } | undefined)?.content;
    if (typeof content === 'string') text = content;
    else if (Array.isArray(content)) {
      // A tool result travels as a user entry too: any non-text block means it is not a prompt.
      const blocks = content as { type?: unknown; text?: unknown }[];
      if (blocks.every((block) => block?.type === 'text' && typeof block.text === 'string')) text = blocks.map((block) => block.text).join('\n');
    }
  } else if (record.type === 'event_msg') {
    const payload = record.payload as { type?: unknown; message?: unknown } | undefined;
    if (payload?.type === 'user_message' && typeof payload.message === 'string') text = payload.message;
  }
  const trimmed = text?.trim();
  return trimmed && !NOT_TYPED.test(trimmed) ? trimmed : undefined;
}

/** The last `maxBytes` of a regular file as text; a line cut at the start is dropped. Non-blocking: a FIFO at `transcript_path` would block the open. */
async function readTail(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, READ_NONBLOCK);
  try {
    const read = await readBounded(handle, maxBytes, { fromEnd: true });
    const text = read?.bytes.toString('utf8') ?? '';
    return read === undefined || read.size <= maxBytes ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    await handle.close();
  }
}
