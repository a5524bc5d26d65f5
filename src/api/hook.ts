/**
 * `skill-search/hook`: the Claude Code `UserPromptSubmit` hook as a function, the client of a running
 * `skill-search watch` server, and `openSearch`, which opens a search as every command does.
 */
export {
  USER_PROMPT_SUBMIT,
  discoveryContext,
  parseClaudeCodeHookInput,
  runClaudeCodeHook,
  type ClaudeCodeHookInput,
  type ClaudeCodeHookOptions,
  type ClaudeCodeHookOutput,
  type ClaudeCodeHookResult,
} from '../integrations/claude-code-hook.js';
export {
  OpenedSearch,
  openSearch,
  snapshotCanAnswer,
  type ClosableSearcher,
  type Fallback,
  type OpenSearchOptions,
  type SearchAnswer,
  type SearchPath,
  type ServerPath,
} from '../service/open-search.js';
export { SkillSocketClient, type RemoteSearchResult, type SocketClientOptions } from '../integrations/socket-client.js';
export { SkillSocketServer, type SkillSocketServerOptions, type SocketServerStats } from '../integrations/socket-server.js';
export { socketPathFor } from '../integrations/socket-protocol.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
