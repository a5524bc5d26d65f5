/**
 * The public API of `skill-search`: every name below is supported; anything else under src/ is
 * internal and may change. The same names are grouped by subpath, so a host that needs one
 * stage imports only that stage's modules (`skill-search/prefetch` loads the prefetcher and
 * p-queue, not the model, the indexes or the MCP SDK). This entry loads every stage except the
 * command line (`skill-search/cli`).
 *
 * | subpath                    | for                                                      |
 * |----------------------------|----------------------------------------------------------|
 * | `skill-search/load`        | SKILL.md files → a merged, watched catalog               |
 * | `skill-search/embed`       | embedders and downloadable models                        |
 * | `skill-search/search`      | the hybrid engine, and a live index kept in step         |
 * | `skill-search/prefetch`    | background discovery during a turn                       |
 * | `skill-search/attachments` | listing, attachment messages, compaction, the Skill tool |
 * | `skill-search/hook`        | the Claude Code hook and the search-server client        |
 * | `skill-search/mcp`         | the MCP stdio server                                     |
 * | `skill-search/cli`         | run a command line in-process                            |
 */
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from './errors.js';
// skill-search/load
export {
  CATALOG_EVENTS,
  SkillCatalog,
  clearCatalogCache,
  getCatalog,
  type CatalogChange,
  type CatalogEventMap,
  type CatalogEventName,
  type McpSkillInput,
  type PluginUpdate,
  DEMO_MODES,
  type CatalogOptions,
  type CatalogWatchOptions,
  type DemoMode,
  parseSkillFile,
  type ParseContext,
  type ParseResult,
  SOURCE_RANKS,
  bundledSkillsDir,
  defaultSources,
  demoSkillsDir,
  type SourceDir,
  formatDiagnostic,
  formatShadowed,
  DIAGNOSTIC_CODES,
  LOADED_FROM,
  type CatalogSnapshot,
  type Diagnostic,
  type DiagnosticCode,
  type LoadedFrom,
  type ShadowedSkill,
  type Skill,
} from './api/load.js';
// skill-search/embed
export {
  DEFAULT_MODELS_DIR,
  resolveEmbedder,
  type ResolveEmbedderOptions,
  createHashEmbedder,
  type HashEmbedderOptions,
  USE_LITE_ID,
  createUseLiteEmbedder,
  createTransformersEmbedder,
  type TransformersEmbedderOptions,
  MODEL_PRESETS,
  findPreset,
  presetIds,
  type ModelPreset,
  type Pooling,
  pullModel,
  type PullOptions,
  type PullProgress,
  type PullResult,
  installFromFolder,
  type InstallFromFolderOptions,
  type EmbedKind,
  type Embedder,
} from './api/embed.js';
// skill-search/search
export {
  SkillSearchEngine,
  type EngineInfo,
  type EngineOptions,
  type SyncOptions,
  type SyncResult,
  LiveIndex,
  type LiveIndexOptions,
  type RefreshOptions,
  type RefreshResult,
  ABSTAIN_LEVELS,
  type AbstainLevel,
  type AbstainSetting,
  CrossLingual,
  detectLanguage,
  type CrossLingualOptions,
  type Language,
  type RoutedQuery,
  readEvalQueries,
  runEval,
  type EvalOptions,
  type EvalQuery,
  type EvalReport,
  type QueryRecord,
  SEARCH_MODES,
  type SearchHit,
  type SearchMode,
  type SearchRequest,
  type SkillSearcher,
} from './api/search.js';
// skill-search/prefetch
export {
  PrefetchHandle,
  SkillPrefetcher,
  type PrefetchState,
  type PrefetchTiming,
  type PrefetchTurn,
  type SkillPrefetcherOptions,
  EXPERIMENTAL_LISTED_SOURCES,
  EXPERIMENTAL_SKILL_SEARCH_ENV,
  isExperimentalSkillSearch,
  listingSkills,
} from './api/prefetch.js';
// skill-search/attachments
export {
  DEFAULT_LISTING_BUDGET_CHARS,
  formatSkillLine,
  formatSkillListing,
  type SkillListing,
  type SkillListingOptions,
  SkillListingTracker,
  type AgentId,
  type ListingTurnOptions,
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
  normalizeMessagesForAPI,
  renderAttachment,
  type ApiMessage,
  wrapInSystemReminder,
  InvocationLog,
  type InvocationRecord,
  compactMessages,
  dropSkillListings,
  invokedSkillsAttachment,
  type CompactOptions,
  SKILL_TOOL_DESCRIPTION,
  SKILL_TOOL_NAME,
  invokeSkill,
  skillToolDefinition,
  skillToolInputSchema,
  skillToolJsonSchema,
  type SkillToolContext,
  type SkillToolInput,
  type SkillToolResult,
} from './api/attachments.js';
// skill-search/hook
export {
  USER_PROMPT_SUBMIT,
  discoveryContext,
  parseClaudeCodeHookInput,
  runClaudeCodeHook,
  type ClaudeCodeHookInput,
  type ClaudeCodeHookOptions,
  type ClaudeCodeHookOutput,
  type ClaudeCodeHookResult,
  ServerFirstSearcher,
  type ClosableSearcher,
  type ServerFirstOptions,
  SkillSocketClient,
  type RemoteSearchResult,
  type SocketClientOptions,
  SkillSocketServer,
  type SkillSocketServerOptions,
  type SocketServerStats,
  socketPathFor,
} from './api/hook.js';
// skill-search/mcp
export {
  MAX_MCP_K,
  MCP_SERVER_NAME,
  createSkillSearchMcpServer,
  serveMcpStdio,
  type ServeMcpOptions,
  type SkillSearchMcpOptions,
} from './api/mcp.js';
