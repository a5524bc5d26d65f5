// Public API of the integrations: a catalog kept in step with a persistent index, the
// Claude Code UserPromptSubmit hook, and the MCP stdio server.
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
