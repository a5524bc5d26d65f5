import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import type { ClaudeCodeListingOptions, CodexListingOptions, CodexRoot, CodexScope, HostListing, WrittenFrontmatter } from '../../attachments/host-listing.js';
import type { Diagnostic, HostName, Skill } from '../../types.js';
import { catalogOptions } from '../context.js';
import { parsePositiveInt, type ParsedValues } from '../args.js';
import { type CliIo, homeDir } from '../io.js';
import { isRecord, readJsonQuietly } from '../../util/json-file.js';
import { isOverride, type SourceOptions } from '../sources.js';
import { cacheRoot } from '../../model-store/paths.js';
import type { SkillMatcher } from '../../load/skill-globs.js';
import type { SourceDir } from '../../load/sources.js';
import { claudeCodeName, claudeCodeSkillText } from '../../integrations/invoked-skills.js';
import { claudeSettingsFiles } from '../../load/claude-plugins.js';
import { firstParagraph } from '../../load/skill.js';

/** What `list` and `tokens` measure a listing with: `--context-window`, the hook's usage counts, the config's pins. */
export interface ListingInputs {
  readonly contextWindowTokens: number | undefined;
  readonly usage: ReadonlyMap<string, number>;
  /** What Claude Code reads from its environment to size its listing. */
  readonly claudeCode: ClaudeCodeSetup;
  readonly pinned: SkillMatcher;
}

export type ClaudeCodeSetup = Pick<ClaudeCodeListingOptions, 'model' | 'contextWindowTokens' | 'budgetColumns' | 'usage'>;

/** The `model` its settings files set (local over project over user), when `ANTHROPIC_MODEL` does not. */
function claudeCodeSettingsModel(home: string, cwd: string): string | undefined {
  const models = claudeSettingsFiles({ home, cwd }).map((file) => {
    const settings = readJsonQuietly(file);
    return isRecord(settings) && typeof settings['model'] === 'string' && settings['model'] !== '' ? settings['model'] : undefined;
  });
  return models.findLast((model) => model !== undefined);
}

/** Claude Code's usage decay: a count loses half its weight a week, never below a tenth. */
const CLAUDE_CODE_USAGE_HALF_LIFE_DAYS = 7;
const CLAUDE_CODE_USAGE_FLOOR = 0.1;

/** Claude Code's own usage scores (`skillUsage` in ~/.claude.json), which order who keeps a description over budget. */
export function claudeCodeUsage(home: string, now = Date.now()): ReadonlyMap<string, number> {
  const config = readJsonQuietly(join(home, '.claude.json'));
  const usage = isRecord(config) && isRecord(config['skillUsage']) ? config['skillUsage'] : {};
  return new Map(
    Object.entries(usage).flatMap(([name, entry]) => {
      if (!isRecord(entry) || typeof entry['usageCount'] !== 'number' || typeof entry['lastUsedAt'] !== 'number') return [];
      const days = (now - entry['lastUsedAt']) / 86_400_000;
      return [[name, entry['usageCount'] * Math.max(0.5 ** (days / CLAUDE_CODE_USAGE_HALF_LIFE_DAYS), CLAUDE_CODE_USAGE_FLOOR)]];
    }),
  );
}

/** The variables Claude Code sizes its listing by: its model, the 1M switch, a set budget. */
export function claudeCodeSetup(env: Readonly<Record<string, string | undefined>>): ClaudeCodeSetup {
  const budget = Number(env.SLASH_COMMAND_TOOL_CHAR_BUDGET);
  const off = (env.CLAUDE_CODE_DISABLE_1M_CONTEXT ?? '').toLowerCase();
  return {
    model: env.ANTHROPIC_MODEL || undefined,
    contextWindowTokens: ['1', 'true', 'yes', 'on'].includes(off) ? 200_000 : undefined,
    budgetColumns: budget > 0 ? budget : undefined,
  };
}

export async function listingInputs(values: ParsedValues, io: CliIo, sources: SourceOptions): Promise<ListingInputs> {
  const windowRaw = values['context-window'];
  const contextWindowTokens = typeof windowRaw === 'string' ? parsePositiveInt('context-window', windowRaw) : undefined;
  const [{ SkillMatcher }, { UsageStore }] = await Promise.all([import('../../load/skill-globs.js'), import('../../usage/usage-store.js')]);
  const usage = UsageStore.open(cacheRoot(io.env), sources.cwd).usageCounts();
  const pinned = new SkillMatcher(sources.config.pin.map((entry) => entry.value));
  const setup = claudeCodeSetup(io.env);
  const claudeCode = { ...setup, model: setup.model ?? claudeCodeSettingsModel(homeDir(io.env), sources.cwd), usage: claudeCodeUsage(homeDir(io.env)) };
  return { contextWindowTokens, usage, claudeCode, pinned };
}

export type CodexSetup = Pick<CodexListingOptions, 'model' | 'configuredWindowTokens'>;

/**
 * What Codex sizes its skills budget by: `model` and `model_context_window` of `<codexHome>/config.toml`,
 * and of `<cwd>/.codex/config.toml` over them when the user's file trusts that folder (Codex reads
 * a project's file only then, or when it trusts a folder above). Its `-m` and `-c` flags are not seen (`--context-window` sets the window).
 */
export async function codexSetup(codexHome: string, cwd: string): Promise<CodexSetup> {
  const [{ readTomlQuietly }, { trustedProject }] = await Promise.all([import('../../hosts/toml-lines.js'), import('../../hosts/codex-trust.js')]);
  const user = readTomlQuietly(join(codexHome, 'config.toml'));
  const trusted = user !== undefined && trustedProject(user, cwd) !== undefined;
  const files = [user, trusted ? readTomlQuietly(join(cwd, '.codex', 'config.toml')) : undefined];
  const last = <T>(read: (table: Record<string, unknown>) => T | undefined): T | undefined =>
    files.map((table) => (table === undefined ? undefined : read(table))).findLast((value) => value !== undefined);
  return {
    model: last((table) => (typeof table['model'] === 'string' && table['model'] !== '' ? table['model'] : undefined)),
    configuredWindowTokens: last((table) => {
      const window = table['model_context_window'];
      return typeof window === 'number' && Number.isSafeInteger(window) && window > 0 ? window : undefined;
    }),
  };
}

/** The folders Codex would read the catalog's skills from, with their scope (with `--skills-dir`, each a user root). */
async function codexRoots(sources: SourceOptions): Promise<CodexRoot[]> {
  const { resolveCatalogOptions, resolveSources } = await import('../../load/index.js');
  const options = resolveCatalogOptions(catalogOptions(sources));
  if (isOverride(sources)) return resolveSources(options).map((dir) => ({ dir: dir.dir, scope: 'user' }));
  if (options.codexHome === null) return [];
  const codexHome = options.codexHome;
  const found = resolveSources(options).filter((dir) => dir.source === 'codex');
  // Nearest first, as the scan finds them; an `.agents/skills` outside the user's is the project's.
  const own = new Set([join(codexHome, 'skills'), join(options.home, '.agents', 'skills'), options.codexAdminDir]);
  const project = (leaf: string) => found.map((dir) => dir.dir).filter((dir) => dir.endsWith(`${sep}${leaf}`) && !own.has(dir));
  const present = new Set(found.map((dir) => dir.dir));
  const root = (dir: string | null, scope: CodexScope): CodexRoot[] => (dir !== null && present.has(dir) ? [{ dir, scope }] : []);
  // Codex 0.171.0's table order, seen in its requests: the project's `.codex/skills` nearest first, its
  // own folder's, the user's, its own `.system` (installed on its first run), the admin folder (not
  // seen: assumed beside `.system`), then the project's `.agents/skills` outermost first.
  return [
    ...project(join('.codex', 'skills')).map((dir): CodexRoot => ({ dir, scope: 'repo' })),
    ...root(join(codexHome, 'skills'), 'user'),
    ...root(join(options.home, '.agents', 'skills'), 'user'),
    { dir: codexSystemDir(codexHome), scope: 'system' },
    ...root(options.codexAdminDir, 'admin'),
    ...project(join('.agents', 'skills'))
      .reverse()
      .map((dir): CodexRoot => ({ dir, scope: 'repo' })),
  ];
}

/** Where Codex installs its own skills (`.system`, a folder our scan of its user folder skips). */
function codexSystemDir(codexHome: string): string {
  return join(codexHome, 'skills', '.system');
}

/**
 * The names of Codex's own skills (its `.system` folder's `<name>/SKILL.md`), which it lists
 * whatever we index: a skill of ours by one of these names is shadowed in Codex.
 */
export async function codexSystemNames(sources: SourceOptions): Promise<ReadonlySet<string>> {
  const { resolveCatalogOptions } = await import('../../load/index.js');
  const { codexHome } = resolveCatalogOptions(catalogOptions(sources));
  if (codexHome === null) return new Set();
  const dir = codexSystemDir(codexHome);
  try {
    const folders = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    return new Set(folders.map((entry) => entry.name).filter((name) => statSync(join(dir, name, 'SKILL.md'), { throwIfNoEntry: false })?.isFile()));
  } catch {
    // Not installed yet (Codex writes it on its first run), or unreadable: nothing to shadow.
    return new Set();
  }
}

/**
 * The skills `host` reads itself, before our merge (with `--skills-dir`, the catalog's). Codex scans
 * only its own folders and keeps same-named skills apart (one file reached through a link once);
 * Claude Code names a `<folder>/SKILL.md` skill by its folder, and shadows by that name.
 */
export async function hostSkills(host: HostName, sources: SourceOptions, skills: readonly Skill[]): Promise<readonly Skill[]> {
  const [load, { skillSelector }, { isNativeTo, tooLargeFor }, { mergeSkills }] = await Promise.all([
    import('../../load/index.js'),
    import('../../load/skill-globs.js'),
    import('../../integrations/hosts.js'),
    import('../../load/merge.js'),
  ]);
  if (isOverride(sources)) return skills;
  const options = load.resolveCatalogOptions(catalogOptions(sources));
  const selected = skillSelector(options.include, options.exclude);
  const dirs = load.resolveSources(options).filter((dir) => isNativeTo(host, dir.source));
  // Codex's own skills share its budget: scanned so that the prediction pays for them (not printed).
  if (host === 'codex' && options.codexHome !== null)
    dirs.push({ dir: codexSystemDir(options.codexHome), source: 'codex', rank: Number.MAX_SAFE_INTEGER, layout: 'skills' });
  const scans = await Promise.all(dirs.map((dir) => load.scanSkillsDir(dir.dir, { ...dir, limits: options.limits })));
  const unread = await frontmatterHostsSkip(scans.flatMap((scan) => scan.diagnostics));
  const entries = scans.flatMap((scan, i) =>
    scan.skills
      .filter((skill) => selected(skill) && !tooLargeFor(host, skill.path) && !(host === 'codex' && unread.has(skill.path)))
      .map((skill) => ({
        skill: host === 'claude-code' ? namedByFolder(unread.has(skill.path) ? withoutFrontmatter(skill) : skill, dirs[i]!) : skill,
        realPath: scan.realPaths.get(skill.path) ?? skill.path,
      })),
  );
  if (host === 'claude-code') return mergeSkills(entries).skills;
  const seen = new Set<string>();
  return entries.filter(({ realPath }) => !seen.has(realPath) && seen.add(realPath)).map(({ skill }) => skill);
}

/**
 * The skill files whose frontmatter the hosts do not read, among those we read line by line: all
 * but those whose only fault is an unquoted ": " in a value, which both read as we do. Codex skips
 * such a file; Claude Code reads it as if it had no frontmatter (docs/hosts.md).
 */
async function frontmatterHostsSkip(diagnostics: readonly Diagnostic[]): Promise<ReadonlySet<string>> {
  const recovered = diagnostics.filter((entry) => entry.code === 'bad-yaml' && entry.severity === 'warning').map((entry) => entry.path);
  if (recovered.length === 0) return new Set();
  const { readFrontmatterLines } = await import('../../load/lenient-frontmatter.js');
  return new Set(
    recovered.filter((file) => {
      try {
        return readFrontmatterLines(readFileSync(file, 'utf8')).unquotedColonLines.length === 0;
      } catch {
        return false;
      }
    }),
  );
}

/** What host rules keep from the model or the user's menu (a skill's `invocation`), with `codex` also the skills named as one of Codex's own, which its hook leaves out; each with why (`validate`, `list`). */
export async function ruledSkills(sources: SourceOptions, skills: readonly Skill[], { codex }: { readonly codex: boolean }) {
  const { invocationNote } = await import('../../load/invocation.js');
  const ruled = skills.flatMap((skill) => {
    const note = invocationNote(skill);
    return note === undefined ? [] : [{ skill, note }];
  });
  // Codex's hook is installed on the default sources: a `--skills-dir` or `--tools` catalog never reaches Codex.
  if (!codex || isOverride(sources)) return ruled;
  const [names, { isHostShadowed }] = await Promise.all([codexSystemNames(sources), import('../../integrations/hosts.js')]);
  const note = 'not suggested in Codex, which lists its own skill of this name (in its skills/.system)';
  return [...ruled, ...skills.filter((skill) => isHostShadowed(skill, 'codex', names)).map((skill) => ({ skill, note }))];
}

/** Which of `names` the folders `host` scans itself hold as `<name>/SKILL.md` (whatever our flags name): those it lists. */
export async function namesHostLists(host: HostName, sources: SourceOptions, names: readonly string[]): Promise<ReadonlySet<string>> {
  const [load, { isNativeTo, tooLargeFor }] = await Promise.all([import('../../load/index.js'), import('../../integrations/hosts.js')]);
  const options = load.resolveCatalogOptions({ ...catalogOptions(sources), skillsDirs: [], toolsFiles: [] });
  const dirs = load.resolveSources(options).filter((dir) => dir.layout === 'skills' && isNativeTo(host, dir.source));
  const holds = (name: string) =>
    basename(name) === name &&
    name !== '.' &&
    name !== '..' &&
    dirs.some((dir) => {
      const file = join(dir.dir, name, 'SKILL.md');
      return statSync(file, { throwIfNoEntry: false })?.isFile() === true && !tooLargeFor(host, file);
    });
  return new Set(names.filter(holds));
}

/** `skill` as Claude Code reads a file without frontmatter: the body's first paragraph its description, nothing else of it. */
function withoutFrontmatter(skill: Skill): Skill {
  const { whenToUse: _whenToUse, whenToUseKey: _key, invocation: _invocation, keywords: _keywords, ...rest } = skill;
  return { ...rest, description: firstParagraph(skill.body) };
}

/** `skill` under the name Claude Code gives it: a `<folder>/SKILL.md` in a skills folder is named by its folder. */
function namedByFolder(skill: Skill, dir: SourceDir): Skill {
  if (dir.layout !== 'skills') return skill;
  const name = claudeCodeName(skill);
  return name === skill.name ? skill : { ...skill, name, id: name };
}

/** A SKILL.md's frontmatter: the YAML between its opening `---` line and the next. */
const FRONTMATTER_BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * The frontmatter texts of the skills of Claude Code's own folders as written, by skill name: the catalog trims
 * them and names such a skill by its folder, while Claude Code keeps a `when_to_use` block scalar's final line break
 * (as a space) and shows a differing `name` beside the folder's. A file whose YAML does not parse has none (read as the catalog reads it).
 */
export async function claudeCodeFrontmatter(skills: readonly Skill[]): Promise<ReadonlyMap<string, WrittenFrontmatter>> {
  const [{ matter }, { readFrontmatterLines }] = await Promise.all([import('../../load/yaml.js'), import('../../load/lenient-frontmatter.js')]);
  const yaml = matter().engines.yaml;
  // YAML, or failing that `key: value` lines where the fault is only an unquoted ": " (which it reads as we do).
  const parse = (text: string): unknown => {
    const block = FRONTMATTER_BLOCK.exec(text)?.[1];
    if (block === undefined) return undefined;
    try {
      return yaml.parse(block);
    } catch {
      const lines = readFrontmatterLines(text);
      return lines.unquotedColonLines.length > 0 ? lines.fields : undefined;
    }
  };
  const written = skills.flatMap((skill): [string, WrittenFrontmatter][] => {
    const file = claudeCodeSkillText(skill);
    if (file === undefined) return [];
    let data: unknown;
    try {
      data = parse(file);
    } catch {
      return [];
    }
    if (!isRecord(data)) return [];
    const text = (key: string) => {
      const value = data[key];
      return typeof value === 'string' && value.trim() !== '' ? value : undefined;
    };
    // It trims a description, not a when_to_use.
    return [[skill.name, { name: text('name'), description: text('description')?.trim(), whenToUse: text('when_to_use') }]];
  });
  return new Map(written);
}

/**
 * What `host` sends for a list of skills, by its own rules (`attachments/host-listing.ts`); `ownOnly`: only the skills it reads itself.
 * `frontmatter` (claudeCodeFrontmatter): Claude Code's texts as written.
 */
export async function hostRenderer(
  host: HostName,
  sources: SourceOptions,
  { ownOnly, contextWindowTokens, usage, claudeCode }: ListingInputs & { readonly ownOnly: boolean },
): Promise<(skills: readonly Skill[], frontmatter?: ReadonlyMap<string, WrittenFrontmatter>) => HostListing> {
  const [{ claudeCodeListing, codexSkillsSection }, { isNativeTo }] = await Promise.all([
    import('../../attachments/host-listing.js'),
    import('../../integrations/hosts.js'),
  ]);
  const roots = host === 'codex' ? await codexRoots(sources) : [];
  const codexHome = host === 'codex' ? (await import('../../load/index.js')).resolveCatalogOptions(catalogOptions(sources)).codexHome : null;
  const codex = codexHome === null ? {} : await codexSetup(codexHome, sources.cwd);
  return (skills, frontmatter) => {
    const own = !ownOnly || isOverride(sources) ? skills : skills.filter((skill) => isNativeTo(host, skill.source));
    // Claude Code orders by its own usage counts when it has them, not by the hook's.
    if (host === 'claude-code') {
      return claudeCodeListing(own, {
        ...claudeCode,
        contextWindowTokens: contextWindowTokens ?? claudeCode.contextWindowTokens,
        usage: claudeCode.usage ?? usage,
        frontmatter,
      });
    }
    const unprintedRoot = roots.find((root) => root.scope === 'system')?.dir;
    return codexSkillsSection(own, { ...codex, contextWindowTokens, roots, unprintedRoot });
  };
}
