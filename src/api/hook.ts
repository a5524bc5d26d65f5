/**
 * `skill-search/hook`: the Claude Code `UserPromptSubmit` hook as a function (stdin JSON in,
 * hook output out, never throwing on bad input), the client that asks a running
 * `skill-search watch` server instead of loading a model in every prompt's process, and the
 * in-process search of a cold process (a saved search snapshot first, `LiveIndex.openSnapshot`).
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
export { ServerFirstSearcher, type ClosableSearcher, type ServerFirstOptions } from '../integrations/server-first.js';
export { SnapshotFirstSearcher, snapshotCanAnswer, type SnapshotFirstOptions } from '../integrations/snapshot-first.js';
export { SkillSocketClient, type RemoteSearchResult, type SocketClientOptions } from '../integrations/socket-client.js';
export { SkillSocketServer, type SkillSocketServerOptions, type SocketServerStats } from '../integrations/socket-server.js';
export { socketPathFor } from '../integrations/socket-protocol.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
