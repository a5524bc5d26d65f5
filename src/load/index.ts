// The loading stage for the commands' lazy imports: skill files → Skill objects → a merged, watched catalog.
export { SkillCatalog, CATALOG_EVENTS } from './catalog.js';
export { resolveCatalogOptions, type CatalogOptions } from './options.js';
export { scanSkillsDir } from './scan.js';
export { loadToolsJsonl } from './tools-jsonl.js';
export { resolveSources, isOverride } from './sources.js';
export { formatDiagnostic, formatShadowed } from './format.js';
