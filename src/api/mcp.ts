/** `skill-search/mcp`: the MCP server (stdio) with the `search_skills` tool. Loads the MCP SDK. */
export {
  MAX_MCP_K,
  MCP_SERVER_NAME,
  createSkillSearchMcpServer,
  serveMcpStdio,
  type ServeMcpOptions,
  type SkillSearchMcpOptions,
} from '../integrations/mcp-server.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
