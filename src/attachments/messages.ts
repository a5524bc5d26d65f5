/** The history an agent loop keeps, and this package's attachments, structured until `normalizeMessagesForAPI` renders them. */
import type { LoadedFrom, Skill } from '../types.js';

/** A skill as announced in a listing or discovery line. */
export type AnnouncedSkill = Pick<Skill, 'name' | 'description' | 'whenToUse'>;

export interface SkillListingAttachment {
  readonly type: 'skill_listing';
  /** The rendered lines (and any budget notes), without the heading. Empty: nothing to send. */
  readonly content: string;
  /** Every name this listing announced, including names the budget shortened or left out. */
  readonly skillNames: readonly string[];
  /** The names listed with their description (discovery may still suggest the others). Absent (an older history): `skillNames`. */
  readonly visibleNames?: readonly string[];
}

export interface DiscoveredSkill extends AnnouncedSkill {
  readonly source: LoadedFrom;
  readonly score: number;
}

export interface SkillDiscoveryAttachment {
  readonly type: 'skill_discovery';
  /** Best first. Never empty: a search that found nothing produces no attachment. */
  readonly skills: readonly DiscoveredSkill[];
}

export interface InvokedSkill {
  readonly name: string;
  /** The skill body as it was injected, already cut to the compaction limit. */
  readonly content: string;
}

export interface InvokedSkillsAttachment {
  readonly type: 'invoked_skills';
  readonly skills: readonly InvokedSkill[];
}

export type Attachment = SkillListingAttachment | SkillDiscoveryAttachment | InvokedSkillsAttachment;
export type AttachmentType = Attachment['type'];

export interface UserMessage {
  readonly type: 'user';
  readonly content: string;
  /** Harness-generated context rather than something the user typed. */
  readonly isMeta?: boolean;
}

export interface ToolUse {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

export interface AssistantMessage {
  readonly type: 'assistant';
  readonly content: string;
  readonly toolUses?: readonly ToolUse[];
}

export interface ToolResultMessage {
  readonly type: 'tool_result';
  readonly toolUseId: string;
  readonly content: string;
  readonly isError?: boolean;
}

export interface AttachmentMessage {
  readonly type: 'attachment';
  readonly attachment: Attachment;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage | AttachmentMessage;

export function attachmentMessage(attachment: Attachment): AttachmentMessage {
  return { type: 'attachment', attachment };
}

/** Names the model has seen in this history (described in a listing, discovered, or invoked): discovery excludes them. */
export function skillNamesInHistory(messages: readonly Message[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) {
    if (message.type !== 'attachment') continue;
    const { attachment } = message;
    switch (attachment.type) {
      case 'skill_listing':
        for (const name of attachment.visibleNames ?? attachment.skillNames) names.add(name);
        break;
      case 'skill_discovery':
      case 'invoked_skills':
        for (const skill of attachment.skills) names.add(skill.name);
        break;
    }
  }
  return names;
}

export function hasAttachment(messages: readonly Message[], type: AttachmentType): boolean {
  return messages.some((m) => m.type === 'attachment' && m.attachment.type === type);
}
