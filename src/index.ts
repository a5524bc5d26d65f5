/**
 * The public API of `skill-search`: the names the subpaths in `src/api/` export (anything else under
 * src/ is internal). Each subpath loads only its stage's modules; this entry loads every stage but the CLI.
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
export * from './api/load.js';
export * from './api/embed.js';
export * from './api/search.js';
export * from './api/prefetch.js';
export * from './api/attachments.js';
export * from './api/hook.js';
export * from './api/mcp.js';
