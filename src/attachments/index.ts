export {
  CHARS_PER_TOKEN,
  DEFAULT_LISTING_BUDGET_CHARS,
  LISTING_CONTEXT_SHARE,
  MAX_LISTING_DESCRIPTION_CHARS,
  formatSkillLine,
  formatSkillListing,
  listingDescription,
  resolveListingOptions,
  shadowByName,
  truncateWithEllipsis,
  type ResolvedSkillListingOptions,
  type SkillListing,
  type SkillListingOptions,
} from './listing.js';
export { SkillListingTracker, type AgentId, type ListingTurnOptions } from './delta.js';
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
} from './messages.js';
export {
  DISCOVERY_HEADING,
  INVOKED_SKILLS_HEADING,
  LISTING_HEADING,
  normalizeMessagesForAPI,
  renderAttachment,
  type ApiMessage,
} from './normalize.js';
export { SYSTEM_REMINDER_CLOSE, SYSTEM_REMINDER_OPEN, neutralizeReminderText, wrapInSystemReminder } from './reminder.js';
export { InvocationLog, type InvocationRecord } from './invocations.js';
export {
  MAX_INVOKED_SKILL_CHARS,
  compactMessages,
  dropSkillListings,
  invokedSkillsAttachment,
  type CompactOptions,
} from './compaction.js';
export {
  SKILL_TOOL_DESCRIPTION,
  SKILL_TOOL_NAME,
  applySkillArgs,
  findSkillByName,
  invokeSkill,
  skillToolDefinition,
  skillToolInputSchema,
  skillToolJsonSchema,
  suggestNames,
  type SkillToolContext,
  type SkillToolInput,
  type SkillToolResult,
} from './skill-tool.js';
