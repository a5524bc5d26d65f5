/**
 * What a host has of ours, as `doctor` reports it: the hook (and whether its command can run),
 * Codex's trust for it, and the MCP server. Checks are data; the command renders them.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadUserConfig } from '../config/user-config.js';
import { errorMessage } from '../errors.js';
import { enabledClaudePlugins } from '../load/claude-plugins.js';
import { binOnPath } from './command.js';
import { codexHookHash, trustEntriesFor, trustStatus, trustedProject } from './codex-trust.js';
import { readHostFile } from './host-file.js';
import { type InstallContext, type InstallScope, hostFiles } from './install.js';
import { type HookPosition, MCP_SERVER_KEY, ourHookPositions, parseSettings } from './json-settings.js';
import { parseToml } from './toml-lines.js';
import { TOML_SERVER_TABLE, isOurServer } from './toml-table.js';
import type { HostName } from '../types.js';
import { isRecord } from '../util/json-file.js';

/** One line of `doctor`: a host's entry (`hook`, `trust`, …) or a part of the search (`doctor search`: `store`, `model`, …). */
export interface Check {
  readonly what: string;
  /** `warn`: searches work, but not as well as they could (or some skills are left out); `absent`: not installed. */
  readonly status: 'ok' | 'warn' | 'problem' | 'absent';
  readonly detail: string;
  /** The step that fixes a problem or an absence. */
  readonly fix?: string;
}

export interface DoctorContext extends InstallContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How a path is shown (`~/…`). */
  readonly show: (file: string) => string;
}

/** `'<word>'` or `word`, the quoting {@link shellWord} writes. */
function firstWords(command: string): string[] {
  return [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].slice(0, 2).map((match) => (match[1] ?? match[2]!).replaceAll(`'\\''`, "'"));
}

/** Whether the hook's command names a program that is there: `node <file>` or a bin on PATH. */
function commandCheck(command: string, env: DoctorContext['env'], show: DoctorContext['show']): Check {
  const [program, script] = firstWords(command);
  const fix = "run 'skill-search install' again from the installed package";
  if ((program === 'node' || program?.endsWith('/node')) && script !== undefined && script.startsWith('/')) {
    return existsSync(script)
      ? { what: 'hook command', status: 'ok', detail: `${show(script)} exists` }
      : { what: 'hook command', status: 'problem', detail: `${show(script)} does not exist (moved or deleted)`, fix };
  }
  if (program === 'skill-search') {
    if (binOnPath(env) !== undefined) return { what: 'hook command', status: 'ok', detail: "'skill-search' is on PATH" };
    return {
      what: 'hook command',
      status: 'problem',
      detail: "'skill-search' is not on PATH",
      fix: "'npm install -g .' in the clone, or run 'skill-search install' again",
    };
  }
  return { what: 'hook command', status: 'ok', detail: `runs ${program ?? command} (not checked)` };
}

function readParsed<T>(file: string, parse: (text: string) => T): { value?: T; error?: string } {
  try {
    const text = readHostFile(file);
    return text === undefined ? {} : { value: parse(text) };
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

/** Our hook handlers in the JSON file `file` (none when it is missing), or why it could not be read. */
function hooksIn(file: string): { ours: HookPosition[]; error?: string | undefined } {
  const hooks = readParsed(file, (text) => ourHookPositions(parseSettings(text, file), file));
  return { ours: hooks.value ?? [], error: hooks.error };
}

/** Codex loads a project's `.codex/` only in a folder trusted in the user's config.toml (`[projects."<dir>"] trust_level`), or one above it. */
function projectTrustCheck(userConfig: string, cwd: string, show: DoctorContext['show']): Check {
  const config = readParsed(userConfig, (text) => parseToml(text, userConfig));
  if (config.error !== undefined) return { what: 'project trust', status: 'problem', detail: config.error };
  const trusted = trustedProject(config.value ?? {}, cwd);
  if (trusted !== undefined) return { what: 'project trust', status: 'ok', detail: `Codex trusts ${show(trusted)}` };
  return {
    what: 'project trust',
    status: 'problem',
    detail: `Codex does not load ${show(path.join(cwd, '.codex'))} until you trust this folder`,
    fix: 'start Codex in the folder and trust it when asked',
  };
}

/** A grace our server meets on a loaded machine too (docs/hosts.md, "MCP tools missing under load"). */
const ENOUGH_GRACE_MS = 5000;

/**
 * Codex waits for an optional MCP server only until a grace shared by all of them (1 s unless the user's
 * `mcp_optional_startup_grace_ms` says otherwise; 0 waits for each server's own start-up timeout), then starts the
 * turn without its tools and says nothing (docs/hosts.md, "MCP tools missing under load").
 */
function codexGraceCheck(userConfig: string, show: DoctorContext['show']): Check | undefined {
  const config = readParsed(userConfig, (text) => parseToml(text, userConfig));
  if (config.error !== undefined) return undefined;
  const grace = config.value?.mcp_optional_startup_grace_ms;
  if (grace === 0) return { what: 'MCP start-up', status: 'ok', detail: `Codex waits for the server before a turn (${show(userConfig)})` };
  if (typeof grace === 'number' && grace >= ENOUGH_GRACE_MS) {
    return { what: 'MCP start-up', status: 'ok', detail: `Codex waits up to ${grace} ms for the server before a turn (${show(userConfig)})` };
  }
  return {
    what: 'MCP start-up',
    status: 'warn',
    detail: `Codex starts a turn without search_skills when the server takes over ${typeof grace === 'number' ? grace : 1000} ms to start (a busy machine)`,
    fix: `put 'mcp_optional_startup_grace_ms = 0' at the top of ${show(userConfig)}`,
  };
}

/** An enabled Claude Code plugin (this repository's `plugin/`) running our hook with another command: every prompt would run it twice. */
function pluginChecks(ours: readonly HookPosition[], install: string, context: DoctorContext): Check[] {
  const checks: Check[] = [];
  for (const plugin of enabledClaudePlugins({ home: context.home, cwd: context.cwd })) {
    const other = hooksIn(path.join(plugin.root, 'hooks', 'hooks.json')).ours.find(({ entry }) => !ours.some((mine) => mine.entry.command === entry.command));
    if (other === undefined) continue;
    checks.push({
      what: 'plugin',
      status: 'problem',
      detail: `the plugin ${plugin.id} runs the hook too, as "${String(other.entry.command)}": every prompt runs it twice`,
      fix: `'${install.replace('install', 'uninstall')}', or 'claude plugin uninstall ${plugin.id}'`,
    });
  }
  return checks;
}

/**
 * Our hook in the other scope's file as well (user and this project): Codex runs each of them, and
 * Claude Code each different command, so every prompt here gets its suggestions twice.
 */
function otherScopeCheck(host: HostName, scope: InstallScope, ours: readonly HookPosition[], context: DoctorContext): Check | undefined {
  const { show } = context;
  const other = scope === 'user' ? 'project' : 'user';
  const here = hostFiles(host, scope, context);
  const file = hostFiles(host, other, context).hooks;
  if (path.resolve(file) === path.resolve(here.hooks)) return undefined;
  const theirs = hooksIn(file).ours;
  if (theirs.length === 0) return undefined;
  if (host === 'claude-code' && theirs.every(({ entry }) => ours.some((mine) => mine.entry.command === entry.command))) return undefined;
  // Codex loads a project's hooks only in a folder the user trusted.
  if (host === 'codex' && projectTrustCheck(here.trust!, context.cwd, show).status !== 'ok') return undefined;
  return {
    what: 'hook',
    status: 'problem',
    detail: `${show(file)} runs it too: every prompt in ${show(context.cwd)} runs it twice`,
    fix: `'skill-search uninstall ${host}${other === 'project' ? ' --project' : ''}' removes that one`,
  };
}

export function doctorChecks(host: HostName, scope: InstallScope, context: DoctorContext): Check[] {
  const { show } = context;
  const files = hostFiles(host, scope, context);
  const install = `skill-search install ${host}${scope === 'project' ? ' --project' : ''}`;
  const checks: Check[] = [];

  const { ours, error } = hooksIn(files.hooks);
  if (error !== undefined) checks.push({ what: 'hook', status: 'problem', detail: error });
  else if (ours.length === 0) checks.push({ what: 'hook', status: 'absent', detail: `no skill-search hook in ${show(files.hooks)}`, fix: install });
  for (const { entry } of ours) {
    checks.push({ what: 'hook', status: 'ok', detail: `"${String(entry.command)}" in ${show(files.hooks)}` });
    checks.push(commandCheck(String(entry.command), context.env, show));
  }

  if (host === 'claude-code' && ours.length > 0) checks.push(...pluginChecks(ours, install, context));
  const twice = ours.length > 0 ? otherScopeCheck(host, scope, ours, context) : undefined;
  if (twice !== undefined) checks.push(twice);

  if (host === 'codex' && ours.length > 0) {
    const trustFile = files.trust!;
    const config = readParsed(trustFile, (text) => text);
    const trustFix = `'${install}' records it, or trust the hook in Codex (/hooks)`;
    for (const { entry } of ours) {
      const detail = 'the hook has fields whose trust hash is not known here; Codex may not run it';
      if (codexHookHash(entry) === undefined) checks.push({ what: 'trust', status: 'problem', detail, fix: 'trust it in Codex (/hooks)' });
    }
    for (const entry of trustEntriesFor(files.hooks, readHostFile(files.hooks))) {
      const status = config.error === undefined ? trustStatus(config.value, entry, trustFile) : undefined;
      if (status === 'trusted') checks.push({ what: 'trust', status: 'ok', detail: `Codex trusts the hook (${show(trustFile)})` });
      else {
        const why =
          config.error ??
          (status === 'modified'
            ? `the hook changed since it was trusted (${show(trustFile)} holds another hash for it)`
            : `no trust entry for it in ${show(trustFile)}`);
        checks.push({ what: 'trust', status: 'problem', detail: `Codex will not run the hook: ${why}`, fix: trustFix });
      }
    }
  }

  if (host === 'codex' && scope === 'project' && ours.length > 0) checks.push(projectTrustCheck(files.trust!, context.cwd, show));

  // Claude Code: `mcpServers` of a JSON file; Codex: `[mcp_servers]` of its config.toml.
  const json = host === 'claude-code';
  const mcp = readParsed(files.mcp, (text) => (json ? parseSettings(text, files.mcp).mcpServers : parseToml(text, files.mcp).mcp_servers));
  const server = isRecord(mcp.value) ? mcp.value[MCP_SERVER_KEY] : undefined;
  const name = json ? `"${MCP_SERVER_KEY}"` : `[${TOML_SERVER_TABLE}]`;
  if (mcp.error !== undefined) checks.push({ what: 'MCP server', status: 'problem', detail: mcp.error });
  else if (server === undefined)
    checks.push({ what: 'MCP server', status: 'absent', detail: `no ${name}${json ? ' server' : ''} in ${show(files.mcp)}`, fix: install });
  else checks.push({ what: 'MCP server', status: 'ok', detail: `${name} in ${show(files.mcp)}${json || isOurServer(server) ? '' : ' (your own table)'}` });
  const grace = host === 'codex' && server !== undefined ? codexGraceCheck(files.trust!, show) : undefined;
  if (grace !== undefined) checks.push(grace);
  const settings = settingsCheck(context);
  if (settings !== undefined) checks.push(settings);
  return checks;
}

/**
 * A skill-search.json that does not load (user's, or the project's from `cwd` up): the hook then
 * skips every prompt and the MCP server exits, while every host file above looks fine.
 */
export function settingsCheck(context: Pick<DoctorContext, 'cwd' | 'home'>): Check | undefined {
  try {
    loadUserConfig(context.cwd, context.home);
    return undefined;
  } catch (error) {
    const detail = `${errorMessage(error)}; until it loads, the hook suggests nothing and the MCP server does not start`;
    return { what: 'settings', status: 'problem', detail, fix: "correct it ('skill-search config' reads it back)" };
  }
}

/** A host counts as installed when any of our entries is there (or a file could not be read). */
export function isInstalled(checks: readonly Check[]): boolean {
  return checks.some((check) => check.status !== 'absent' && (check.what === 'hook' || check.what === 'MCP server'));
}
