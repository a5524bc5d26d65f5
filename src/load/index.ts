// The loading stage for the commands' lazy imports: skill files → Skill objects → a merged, watched catalog.
export { SkillCatalog, CATALOG_EVENTS, getCatalog, clearCatalogCache, type CatalogChange } from './catalog.js';
export { resolveCatalogOptions, type CatalogOptions } from './options.js';
export { parseSkillFile, type ParseContext } from './frontmatter.js';
export { scanSkillsDir } from './scan.js';
export { loadToolsJsonl } from './tools-jsonl.js';
export { demoSkillsDir } from './default-dirs.js';
export { projectDirs, resolveSources, isOverride } from './sources.js';
export { formatDiagnostic, formatShadowed } from './format.js';
export { DEFAULT_SKILL_LIMITS } from './skill.js';
