/** `skill-search/attachments`: what the model sees: the listing and its delta, attachment messages and their rendering, compaction, the Skill tool. */
export {
  DEFAULT_LISTING_BUDGET_CHARS,
  formatSkillLine,
  formatSkillListing,
  type SkillListing,
  type SkillListingOptions,
} from '../attachments/listing.js';
export { SkillListingTracker, type AgentId, type CatalogChanges, type ListingTurnOptions } from '../attachments/delta.js';
export {
  attachmentMessage,
  hasAttachment,
  skillNamesInHistory,
  type AnnouncedSkill,
  type AssistantMessage,
  type Attachment,
  type AttachmentMessage,
  type AttachmentType,
  type DiscoveredSkill,
  type InvokedSkill,
  type InvokedSkillsAttachment,
  type Message,
  type SkillDiscoveryAttachment,
  type SkillListingAttachment,
  type ToolResultMessage,
  type ToolUse,
  type UserMessage,
} from '../attachments/messages.js';
export { normalizeMessagesForAPI, renderAttachment, type ApiMessage } from '../attachments/normalize.js';
export { wrapInSystemReminder } from '../attachments/reminder.js';
export { InvocationLog, type InvocationRecord } from '../attachments/invocations.js';
export { compactMessages, dropSkillListings, invokedSkillsAttachment, type CompactOptions } from '../attachments/compaction.js';
export {
  SKILL_TOOL_DESCRIPTION,
  SKILL_TOOL_NAME,
  invokeSkill,
  skillToolDefinition,
  skillToolInputSchema,
  skillToolJsonSchema,
  type ObjectJsonSchema,
  type SkillToolContext,
  type SkillToolInput,
  type SkillToolResult,
} from '../attachments/skill-tool.js';
export type { Skill } from '../types.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
