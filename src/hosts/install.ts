/**
 * `install` / `uninstall` for a host: installing merges our entries into each file and keeps
 * the original beside it (`<file>.skill-search.bak`); uninstalling takes them out and, when
 * nothing else in the file changed since, puts the original bytes back.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SkillSearchError, errorMessage } from '../errors.js';
import type { HostName } from '../types.js';
import { codexHookHash, staleTrustEntries, trustEntriesFor, withTrustEntry, withoutTrustEntry } from './codex-trust.js';
import { readHostFile, removeHostFile, writeHostFile, writeTarget } from './host-file.js';
import { parseSettings, withHookText, withMcpServerText, withoutHookText, withoutMcpServerText } from './json-settings.js';
import { withServerTable, withoutServerTable } from './toml-table.js';

const INSTALL_SCOPES = ['user', 'project'] as const;
export type InstallScope = (typeof INSTALL_SCOPES)[number];

const BACKUP_SUFFIX = '.skill-search.bak';
/** Seconds a host waits for the hook; the hook's own budget (3 s by default) ends well before. */
const HOOK_HOST_TIMEOUT_S = 10;

export interface InstallContext {
  readonly home: string;
  /** The project folder (`--project`). */
  readonly cwd: string;
  readonly codexHome: string;
  /** How to run this CLI: `['skill-search']` when it is on PATH, else the bin's absolute path. */
  readonly command: readonly string[];
}

/** Another file's text as the plan stands (Codex's trust entry is keyed by where our hook sits in hooks.json). */
type PeerText = (file: string) => string | undefined;

/** One or more of our entries in one file. */
export interface FileEdit {
  readonly file: string;
  /** What the entry is, for messages. */
  readonly what: string;
  readonly format: 'json' | 'toml';
  /** For an edit of several entries: those of them `add` changes in `text`, for messages (default {@link what}). */
  changed?(text: string, peer: PeerText): string;
  add(text: string, peer: PeerText): string;
  remove(text: string, peer: PeerText): string;
}

/** A POSIX shell word (hosts run hook commands through a shell). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The hook handler and the MCP server entry `install` writes for the command that runs this CLI. */
export function ourEntries(host: HostName, command: readonly string[]) {
  const hook = { command: [...command, 'hook', host].map(shellWord).join(' '), timeout: HOOK_HOST_TIMEOUT_S };
  return { hook, server: { command: command[0]!, args: [...command.slice(1), 'mcp'] } };
}

/** Where each host keeps what `install` writes, per scope. */
export function hostFiles(host: HostName, scope: InstallScope, context: InstallContext) {
  if (host === 'claude-code') {
    const base = scope === 'user' ? context.home : context.cwd;
    // Claude Code keeps user-wide MCP servers in ~/.claude.json and project ones in .mcp.json.
    return { hooks: path.join(base, '.claude', 'settings.json'), mcp: scope === 'user' ? path.join(base, '.claude.json') : path.join(base, '.mcp.json') };
  }
  const dir = scope === 'user' ? context.codexHome : path.join(context.cwd, '.codex');
  // Codex reads hook trust from the user's config.toml only, for project hooks too.
  return { hooks: path.join(dir, 'hooks.json'), mcp: path.join(dir, 'config.toml'), trust: path.join(context.codexHome, 'config.toml') };
}

/** Codex's trust edits of its user config.toml for our hook in `hooksFile`. */
function trustEdit(hooksFile: string, configFile: string, ourHook: { command: string; timeout: number }) {
  const ourHash = codexHookHash({ type: 'command', ...ourHook })!;
  return {
    // Our hash left at a place our hook has moved from (another hook put before it) goes: it trusts nothing there.
    add: (text: string, peer: PeerText) => {
      const current = trustEntriesFor(hooksFile, peer(hooksFile));
      const moved = staleTrustEntries(text, hooksFile, ourHash, configFile).filter((entry) => !current.some(({ key }) => key === entry.key));
      const kept = moved.reduce((next, entry) => withoutTrustEntry(next, entry, configFile), text);
      return current.reduce((next, entry) => withTrustEntry(next, entry, configFile), kept);
    },
    remove: (text: string, peer: PeerText) => {
      const entries = [...trustEntriesFor(hooksFile, peer(hooksFile)), ...staleTrustEntries(text, hooksFile, ourHash, configFile)];
      return entries.reduce((next, entry) => withoutTrustEntry(next, entry, configFile), text);
    },
  };
}

/** The entries `install <host>` writes, per scope; a file's edit comes after the edits it reads (hooks.json first). */
export function installEdits(host: HostName, scope: InstallScope, context: InstallContext): FileEdit[] {
  const { hook, server } = ourEntries(host, context.command);
  const hookWhat = `the UserPromptSubmit hook "${hook.command}"`;
  const serverWhat = `the MCP server "skill-search" (${[server.command, ...server.args].join(' ')})`;
  const files = hostFiles(host, scope, context);
  const hookEdit: FileEdit = {
    file: files.hooks,
    what: hookWhat,
    format: 'json',
    add: (text) => withHookText(text, hook, files.hooks),
    remove: (text) => withoutHookText(text, files.hooks),
  };
  if (host === 'claude-code') {
    const mcp = files.mcp;
    return [
      hookEdit,
      { file: mcp, what: serverWhat, format: 'json', add: (text) => withMcpServerText(text, server, mcp), remove: (text) => withoutMcpServerText(text, mcp) },
    ];
  }
  const config = files.mcp;
  const serverEdit: FileEdit = {
    file: config,
    what: serverWhat,
    format: 'toml',
    add: (text) => withServerTable(text, server, config),
    remove: (text) => withoutServerTable(text, config),
  };
  const trust = trustEdit(files.hooks, files.trust!, hook);
  const trustWhat = `the hook's trust entry (the hash Codex checks before it runs the hook)`;
  if (config !== files.trust) return [hookEdit, serverEdit, { file: files.trust!, what: trustWhat, format: 'toml', ...trust }];
  // The user scope: the server and the trust entry are both in Codex's config.toml, one edit.
  return [
    hookEdit,
    {
      ...serverEdit,
      what: `${serverWhat}, and ${trustWhat}`,
      changed: (text, peer) => {
        const server = serverEdit.add(text, peer) !== text;
        return server === (trust.add(text, peer) !== text) ? `${serverWhat}, and ${trustWhat}` : server ? serverWhat : trustWhat;
      },
      add: (text, peer) => trust.add(serverEdit.add(text, peer), peer),
      remove: (text, peer) => trust.remove(serverEdit.remove(text, peer), peer),
    },
  ];
}

/** One file's change: `after` undefined means the file is deleted (it did not exist before install). */
export interface FileChange {
  readonly file: string;
  readonly what: string;
  readonly action: 'added' | 'updated' | 'unchanged' | 'removed' | 'restored' | 'deleted' | 'absent';
  readonly before: string | undefined;
  readonly after: string | undefined;
  /** Backup written (install) or consumed (uninstall). */
  readonly backup?: string;
}

export function planInstall(edits: readonly FileEdit[]): FileChange[] {
  const planned = new Map<string, string | undefined>();
  const peer: PeerText = (file) => (planned.has(file) ? planned.get(file) : readHostFile(file));
  return edits.map((edit) => {
    const before = readHostFile(edit.file);
    const after = edit.add(before ?? '', peer);
    planned.set(edit.file, after);
    if (after === before) return { file: edit.file, what: edit.what, action: 'unchanged', before, after };
    const backup = before !== undefined && !existsSync(edit.file + BACKUP_SUFFIX) ? edit.file + BACKUP_SUFFIX : undefined;
    const action = before !== undefined && edit.remove(before, readHostFile) !== before ? 'updated' : 'added';
    const what = edit.changed?.(before ?? '', peer) ?? edit.what;
    return { file: edit.file, what, action, before, after, backup };
  });
}

/** What two versions of a file are compared by: a TOML file's text without trailing space, a JSON file's value (undefined: not JSON). */
function content(format: FileEdit['format'], text: string): string | undefined {
  if (format === 'toml') return text.trimEnd();
  try {
    return JSON.stringify(parseSettings(text, ''));
  } catch {
    return undefined;
  }
}

export function planUninstall(edits: readonly FileEdit[]): FileChange[] {
  return edits.map(({ file, what, format, remove }) => {
    const before = readHostFile(file);
    const change = (action: FileChange['action'], after: string | undefined, backup?: string): FileChange => ({ file, what, action, before, after, backup });
    const removed = before === undefined ? undefined : remove(before, readHostFile);
    if (before === undefined || removed === before) return change('absent', before);
    const backupFile = file + BACKUP_SUFFIX;
    const original = readHostFile(backupFile);
    const value = content(format, removed!);
    if (original !== undefined && value !== undefined && value === content(format, original)) return change('restored', original, backupFile);
    if (original === undefined && value === (format === 'toml' ? '' : '{}')) return change('deleted', undefined);
    // Something else changed since install: keep those changes, and keep the backup for the user.
    return change('removed', removed);
  });
}

/**
 * Writes planned changes: install's backup first, then the file (atomically, through a symlink, mode kept); a
 * restored file's backup goes. A file that cannot be written (read-only folder, full disk) stops the run with
 * one line naming it and the files already written.
 */
export function applyChanges(changes: readonly FileChange[]): void {
  const written: string[] = [];
  for (const change of changes) {
    if (change.action === 'unchanged' || change.action === 'absent') continue;
    try {
      const installing = change.action === 'added' || change.action === 'updated';
      if (installing && change.backup !== undefined && change.before !== undefined) writeHostFile(change.backup, change.before);
      if (change.after === undefined) removeHostFile(change.file);
      else writeHostFile(change.file, change.after);
      if (!installing && change.backup !== undefined) rmSync(change.backup, { force: true });
      written.push(change.file);
    } catch (error) {
      if (error instanceof SkillSearchError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
      const done = written.length === 0 ? 'nothing was changed' : `already changed: ${written.join(', ')}`;
      throw new SkillSearchError('BAD_FILE', `${writeTarget(change.file)}: cannot write (${code}); ${done}`, { cause: error });
    }
  }
}
