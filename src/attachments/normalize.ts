/**
 * History → role/content messages before each API call: attachments become `isMeta` user
 * messages in a `<system-reminder>`, every piece of skill text neutralised on the way.
 */
import { formatSkillLine } from './listing.js';
import type { Attachment, Message } from './messages.js';
import { neutralizeReminderText, wrapInSystemReminder } from './reminder.js';

export const LISTING_HEADING = 'The following skills are available for use with the Skill tool:';
const DISCOVERY_HEADING = 'Skills relevant to your task:';
const INVOKED_SKILLS_HEADING = 'Skills invoked earlier in this conversation. Their instructions still apply:';

export interface ApiMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
  /** Set on harness-generated user messages (attachments); absent on what the user typed. */
  readonly isMeta?: true;
  readonly toolUses?: readonly { readonly id: string; readonly name: string; readonly input: unknown }[];
  readonly toolResult?: { readonly toolUseId: string; readonly isError: boolean };
}

/** The text of one attachment inside its reminder, or `null` when there is nothing to say. */
export function renderAttachment(attachment: Attachment): string | null {
  const text = attachmentText(attachment);
  return text === null ? null : wrapInSystemReminder(text);
}

/** The text of one attachment without its `<system-reminder>` envelope (a host that wraps context itself), or `null`. */
export function attachmentText(attachment: Attachment): string | null {
  switch (attachment.type) {
    case 'skill_listing': {
      const content = neutralizeReminderText(attachment.content);
      return content.trim() === '' ? null : `${LISTING_HEADING}\n\n${content}`;
    }
    case 'skill_discovery':
      return attachment.skills.length === 0 ? null : `${DISCOVERY_HEADING}\n\n${attachment.skills.map(formatSkillLine).join('\n')}`;
    case 'invoked_skills': {
      if (attachment.skills.length === 0) return null;
      const sections = attachment.skills.map((skill) => `### Skill: ${neutralizeReminderText(skill.name)}\n\n${neutralizeReminderText(skill.content)}`);
      return `${INVOKED_SKILLS_HEADING}\n\n${sections.join('\n\n')}`;
    }
  }
}

export function normalizeMessagesForAPI(messages: readonly Message[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  for (const message of messages) {
    switch (message.type) {
      case 'user':
        out.push({ role: 'user', content: message.content, ...(message.isMeta === true ? { isMeta: true } : {}) });
        break;
      case 'assistant':
        out.push({ role: 'assistant', content: message.content, ...(message.toolUses?.length ? { toolUses: message.toolUses } : {}) });
        break;
      case 'tool_result':
        out.push({ role: 'user', content: message.content, toolResult: { toolUseId: message.toolUseId, isError: message.isError === true } });
        break;
      case 'attachment': {
        const content = renderAttachment(message.attachment);
        if (content !== null) out.push({ role: 'user', content, isMeta: true });
        break;
      }
    }
  }
  return out;
}
