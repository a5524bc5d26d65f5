// Public API of the loading stage: skill files → Skill objects → a merged, watched catalog.
export {
  SkillCatalog,
  CATALOG_EVENTS,
  getCatalog,
  clearCatalogCache,
  type CatalogChange,
  type CatalogEventMap,
  type CatalogEventName,
  type McpSkillInput,
  type PluginUpdate,
} from './catalog.js';
export {
  resolveCatalogOptions,
  resolveWatchOptions,
  DEFAULT_WATCH_OPTIONS,
  DEMO_MODES,
  type DemoMode,
  type CatalogOptions,
  type CatalogWatchOptions,
  type ResolvedCatalogOptions,
  type ResolvedWatchOptions,
} from './options.js';
export { parseSkillFile, type ParseContext, type ParseResult } from './frontmatter.js';
export { validateFields, type FieldContext, type FieldsResult, type ValidFields } from './fields.js';
export { scanSkillsDir, SKILL_FILE, type DirLayout, type ScanOptions, type ScanResult } from './scan.js';
export { loadToolsJsonl, type ToolsOptions, type ToolsResult } from './tools-jsonl.js';
export { mergeSkills, type MergeEntry, type MergeResult } from './merge.js';
export { bundledSkillsDir, demoSkillsDir, packageRoot, defaultCodexHome, defaultCodexAdminDir, defaultManagedDir } from './default-dirs.js';
export {
  SOURCE_RANKS,
  OVERRIDE_RANK,
  demoSource,
  defaultSources,
  projectDirs,
  resolveSources,
  isOverride,
  type SourceDir,
} from './sources.js';
export { enabledClaudePlugins, enabledPluginIds, claudeSettingsFiles, type ClaudePlugin, type ClaudePluginContext } from './claude-plugins.js';
export { formatDiagnostic, formatShadowed } from './format.js';
export {
  DEFAULT_SKILL_LIMITS,
  buildSkill,
  estimateTokens,
  indexedText,
  type SkillFields,
  type SkillLimits,
  type SkillOrigin,
} from './skill.js';
