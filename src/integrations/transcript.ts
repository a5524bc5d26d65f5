/**
 * Skills already invoked in a Claude Code session, read from its transcript (JSONL, one
 * entry per line; an assistant entry's `message.content` holds `tool_use` blocks, the Skill
 * tool's with `input.skill`). Best effort by design: the transcript format is Claude Code's,
 * not ours, so anything unexpected means "nothing known", never an error.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** Claude Code's tool name (as `SKILL_TOOL_NAME`; not imported, that module loads zod into the hook). */
const SKILL_TOOL = 'Skill';
/** Only the end of a longer transcript is read (a session that long has been compacted anyway). */
export const MAX_TRANSCRIPT_BYTES = 32 * 1024 * 1024;

export interface TranscriptOptions {
  /** @default MAX_TRANSCRIPT_BYTES */
  readonly maxBytes?: number;
}

/** Names of skills the Skill tool was called with, in `transcriptPath`; empty on any problem. */
export async function invokedSkillsInTranscript(transcriptPath: string | undefined, options: TranscriptOptions = {}): Promise<ReadonlySet<string>> {
  const names = new Set<string>();
  if (transcriptPath === undefined || transcriptPath === '') return names;
  let text: string;
  try {
    text = await readTail(transcriptPath, options.maxBytes ?? MAX_TRANSCRIPT_BYTES);
  } catch {
    return names;
  }
  for (const line of text.split('\n')) {
    // Cheap filter first: most lines are messages and tool results that never mention the tool.
    if (!line.includes(`"${SKILL_TOOL}"`)) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    for (const name of skillCalls(entry)) names.add(name);
  }
  return names;
}

function skillCalls(entry: unknown): string[] {
  const content = (entry as { message?: { content?: unknown } } | null)?.message?.content;
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

/**
 * Opened without blocking: a FIFO, a terminal or a device at `transcript_path` would otherwise
 * block the open (and Node's exit) until something writes to it.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The last `maxBytes` of a regular file as text; a line cut at the start is dropped. */
async function readTail(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, OPEN_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return '';
    const { size } = stats;
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    await handle.close();
  }
}
