/** `skill-search/load`: SKILL.md files → `Skill` objects → a merged, watched catalog; bad files come back as diagnostics. */
export {
  CATALOG_EVENTS,
  SkillCatalog,
  clearCatalogCache,
  getCatalog,
  type CatalogChange,
  type CatalogEventMap,
  type CatalogEventName,
  type PluginUpdate,
} from '../load/catalog.js';
export type { McpSkillInput } from '../load/mcp-skills.js';
export { DEMO_MODES, type CatalogOptions, type CatalogWatchOptions, type DemoMode } from '../load/options.js';
export { parseSkillFile, type ParseContext, type ParseResult } from '../load/frontmatter.js';
export { SOURCE_RANKS, defaultSources, type SourceDir } from '../load/sources.js';
export { bundledSkillsDir, demoSkillsDir } from '../load/default-dirs.js';
export { formatDiagnostic, formatShadowed } from '../load/format.js';
export {
  DIAGNOSTIC_CODES,
  LOADED_FROM,
  type CatalogSnapshot,
  type Diagnostic,
  type DiagnosticCode,
  type LoadedFrom,
  type ShadowedSkill,
  type Skill,
} from '../types.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
