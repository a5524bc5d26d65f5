/**
 * Compaction (SPEC §4): listings are dropped and not re-sent (the delta tracker is left as is);
 * invoked skills' bodies survive as one `invoked_skills` attachment, each cut to 5,000 characters.
 */
import type { InvocationLog } from './invocations.js';
import { truncateWithEllipsis } from '../util/text.js';
import { attachmentMessage, type InvokedSkillsAttachment, type Message, type UserMessage } from './messages.js';

const MAX_INVOKED_SKILL_CHARS = 5_000;

/** The history the summariser sees: every skill_listing attachment removed. */
export function dropSkillListings(messages: readonly Message[]): Message[] {
  return messages.filter((m) => !(m.type === 'attachment' && m.attachment.type === 'skill_listing'));
}

/** One attachment holding every invoked skill's body (latest invocation each), or `null` if none. */
export function invokedSkillsAttachment(log: InvocationLog): InvokedSkillsAttachment | null {
  const invoked = log.invoked();
  if (invoked.length === 0) return null;
  return {
    type: 'invoked_skills',
    skills: invoked.map((record) => ({
      name: record.name,
      content: truncateWithEllipsis(record.content, MAX_INVOKED_SKILL_CHARS),
    })),
  };
}

export interface CompactOptions {
  /** The summary of the dropped history, produced by the harness's summariser. */
  readonly summary: string;
  readonly invocations: InvocationLog;
  /** Recent messages kept after the summary, without listings and earlier `invoked_skills`. @default [] */
  readonly keep?: readonly Message[];
}

/** The history after compaction: the summary, the kept messages, then the invoked skills. */
export function compactMessages(options: CompactOptions): Message[] {
  const summary: UserMessage = { type: 'user', content: options.summary, isMeta: true };
  const kept = dropSkillListings(options.keep ?? []).filter((m) => !(m.type === 'attachment' && m.attachment.type === 'invoked_skills'));
  const invoked = invokedSkillsAttachment(options.invocations);
  return invoked === null ? [summary, ...kept] : [summary, ...kept, attachmentMessage(invoked)];
}
