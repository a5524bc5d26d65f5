/**
 * The Claude Code plugins installed and enabled for a project: `~/.claude/plugins/installed_plugins.json` (where each `name@marketplace`
 * is installed, per scope) and the `enabledPlugins` maps of the user, project and local settings (later ones win). Unreadable or
 * malformed files contribute nothing (the host reports them).
 */
import { join, resolve } from 'node:path';
import { within } from '../util/paths.js';
import { isRecord, readJsonQuietly } from '../util/json-file.js';

export interface ClaudePlugin {
  /** `name@marketplace`. */
  readonly id: string;
  /** The namespace of its skills (`name:skill`): the manifest's `name`, else the id's name part. */
  readonly name: string;
  readonly root: string;
  /** `skills/` plus any folder the manifest's `skills` adds (inside the plugin only). */
  readonly skillDirs: readonly string[];
  readonly commandDirs: readonly string[];
}

export interface ClaudePluginContext {
  readonly home: string;
  /** The project folder Claude Code runs in: its `.claude/settings*.json` and project-scoped installs. */
  readonly cwd: string;
}

/** Where Claude Code records which plugins are installed, and where. */
export function installedPluginsFile(home: string): string {
  return join(home, '.claude', 'plugins', 'installed_plugins.json');
}

/** Settings files holding `enabledPlugins`, lowest precedence first. */
export function claudeSettingsFiles(context: ClaudePluginContext): string[] {
  return [join(context.home, '.claude', 'settings.json'), join(context.cwd, '.claude', 'settings.json'), join(context.cwd, '.claude', 'settings.local.json')];
}

/** Plugin ids switched on by the merged `enabledPlugins` maps. */
function enabledPluginIds(context: ClaudePluginContext): string[] {
  const state = new Map<string, boolean>();
  for (const file of claudeSettingsFiles(context)) {
    const settings = readJsonQuietly(file);
    if (!isRecord(settings) || !isRecord(settings.enabledPlugins)) continue;
    for (const [id, enabled] of Object.entries(settings.enabledPlugins)) {
      if (typeof enabled === 'boolean') state.set(id, enabled);
    }
  }
  return [...state].filter(([, enabled]) => enabled).map(([id]) => id);
}

/** The install of `id` that applies in `cwd`: a project or local one for this project first, else a user-wide one. */
function installPathFor(entries: unknown, cwd: string): string | undefined {
  const list = (Array.isArray(entries) ? entries : [entries]).filter(isRecord);
  const usable = list.filter((entry) => typeof entry.installPath === 'string' && entry.installPath !== '');
  const forProject = usable.find(
    (entry) => (entry.scope === 'project' || entry.scope === 'local') && typeof entry.projectPath === 'string' && resolve(entry.projectPath) === resolve(cwd),
  );
  const wide = usable.find((entry) => entry.scope === undefined || entry.scope === 'user' || entry.scope === 'managed');
  return (forProject ?? wide)?.installPath as string | undefined;
}

function manifestPaths(value: unknown, root: string): string[] {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  return list.map((item) => resolve(root, item)).filter((dir) => within(dir, root));
}

export function enabledClaudePlugins(context: ClaudePluginContext): ClaudePlugin[] {
  const enabled = enabledPluginIds(context);
  if (enabled.length === 0) return [];
  const installed = readJsonQuietly(installedPluginsFile(context.home));
  if (!isRecord(installed) || !isRecord(installed.plugins)) return [];
  const plugins: ClaudePlugin[] = [];
  for (const id of enabled.sort()) {
    const root = installPathFor(installed.plugins[id], context.cwd);
    if (root === undefined) continue;
    const manifest = readJsonQuietly(join(root, '.claude-plugin', 'plugin.json'));
    const manifestName = isRecord(manifest) && typeof manifest.name === 'string' && manifest.name !== '' ? manifest.name : undefined;
    const name = manifestName ?? id.split('@', 1)[0] ?? id;
    const extraSkills = isRecord(manifest) ? manifestPaths(manifest.skills, root) : [];
    const skillDirs = [...new Set([join(root, 'skills'), ...extraSkills])];
    plugins.push({ id, name, root, skillDirs, commandDirs: [join(root, 'commands')] });
  }
  return plugins;
}
