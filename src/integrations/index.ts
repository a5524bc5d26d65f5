// Public API of the integrations: a catalog kept in step with a persistent index, the
// Claude Code UserPromptSubmit hook, the MCP stdio server, and the local search server
// (with its client) that lets per-prompt processes ask a resident index.
export { LiveIndex, type LiveIndexOptions, type RefreshOptions, type RefreshResult } from './live-index.js';
export type { SkillService } from './service.js';
export {
  USER_PROMPT_SUBMIT,
  HookInputError,
  discoveryContext,
  parseClaudeCodeHookInput,
  runClaudeCodeHook,
  type ClaudeCodeHookInput,
  type ClaudeCodeHookOptions,
  type ClaudeCodeHookOutput,
  type ClaudeCodeHookResult,
} from './claude-code-hook.js';
export {
  MCP_SERVER_NAME,
  MAX_MCP_K,
  createSkillSearchMcpServer,
  serveMcpStdio,
  type ServeMcpOptions,
  type SkillSearchMcpOptions,
} from './mcp-server.js';
export { invokedSkillsInTranscript, MAX_TRANSCRIPT_BYTES, type TranscriptOptions } from './transcript.js';
export {
  MAX_REQUEST_BYTES,
  MAX_SOCKET_K,
  PROTOCOL_ERRORS,
  SOCKET_FILE,
  fromWireHit,
  parseRequestLine,
  socketPathFor,
  toWireHit,
  type ErrorResponseLine,
  type PingRequestLine,
  type PingResponseLine,
  type ProtocolErrorCode,
  type RequestId,
  type RequestLine,
  type ResponseLine,
  type SearchRequestLine,
  type SearchResponseLine,
  type WireHit,
} from './socket-protocol.js';
export { SkillSocketServer, type SkillSocketServerOptions, type SocketServerStats } from './socket-server.js';
export { SkillSocketClient, type RemoteSearchResult, type SocketClientOptions } from './socket-client.js';
export { ServerFirstSearcher, type ClosableSearcher, type ServerFirstOptions } from './server-first.js';
// Hosts (issue 14): what each host lists itself, load notes, listing cost.
export { HOSTS, HOST_NATIVE_SOURCES, HostSearcher, isNativeTo, loadInstructions, neverSuggesting, type DeferredSkill, type HostName } from './hosts.js';
export { listingCost, type ListingCost, type ListingCostOptions, type ListingSide, type SourceCost } from './listing-cost.js';
