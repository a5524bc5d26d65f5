/**
 * `install` / `uninstall` for a host: which files get which entry, and how each file is
 * changed. Installing merges our entries into what is there (never replaces a file) and
 * keeps the original beside it (`<file>.skill-search.bak`); uninstalling takes our entries
 * out and, when nothing else in the file changed since, puts the original bytes back.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../vector-index/atomic-file.js';
import { detectStyle, formatSettings, parseSettings, withHook, withMcpServer, withoutHook, withoutMcpServer, type JsonObject } from './json-settings.js';
import { withServerTable, withoutServerTable } from './toml-table.js';

export const INSTALL_HOSTS = ['claude-code', 'codex'] as const;
export type InstallHost = (typeof INSTALL_HOSTS)[number];
export const INSTALL_SCOPES = ['user', 'project'] as const;
export type InstallScope = (typeof INSTALL_SCOPES)[number];

export const BACKUP_SUFFIX = '.skill-search.bak';
/** Seconds a host waits for the hook; the hook's own budget (3 s by default) ends well before. */
export const HOOK_HOST_TIMEOUT_S = 10;

export interface InstallContext {
  readonly home: string;
  /** The project folder (`--project`). */
  readonly cwd: string;
  readonly codexHome: string;
  /** How to run this CLI: `['skill-search']` when it is on PATH, else the bin's absolute path. */
  readonly command: readonly string[];
}

/** One entry in one file. */
export interface FileEdit {
  readonly file: string;
  /** What the entry is, for messages. */
  readonly what: string;
  readonly format: 'json' | 'toml';
  add(text: string): string;
  remove(text: string): string;
}

/** A POSIX shell word (hosts run hook commands through a shell). */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

export function hookCommand(host: InstallHost, command: readonly string[]): string {
  return [...command, 'hook', host].map(shellWord).join(' ');
}

function jsonEdit(file: string, what: string, add: (value: JsonObject) => JsonObject, remove: (value: JsonObject) => JsonObject): FileEdit {
  const apply = (text: string, change: (value: JsonObject) => JsonObject) => {
    const value = parseSettings(text, file);
    const next = change(value);
    return next === value ? text : formatSettings(next, detectStyle(text));
  };
  return { file, what, format: 'json', add: (text) => apply(text, add), remove: (text) => apply(text, remove) };
}

/** The entries `install <host>` writes, per scope. */
export function installEdits(host: InstallHost, scope: InstallScope, context: InstallContext): FileEdit[] {
  const hook = { command: hookCommand(host, context.command), timeout: HOOK_HOST_TIMEOUT_S };
  const server = { command: context.command[0]!, args: [...context.command.slice(1), 'mcp'] };
  const hookWhat = `the ${'UserPromptSubmit'} hook "${hook.command}"`;
  const serverWhat = `the MCP server "skill-search" (${[server.command, ...server.args].join(' ')})`;
  if (host === 'claude-code') {
    const settings = scope === 'user' ? path.join(context.home, '.claude', 'settings.json') : path.join(context.cwd, '.claude', 'settings.json');
    // Claude Code keeps user-wide MCP servers in ~/.claude.json and project ones in .mcp.json.
    const mcp = scope === 'user' ? path.join(context.home, '.claude.json') : path.join(context.cwd, '.mcp.json');
    return [
      jsonEdit(settings, hookWhat, (value) => withHook(value, hook, settings), withoutHook),
      jsonEdit(mcp, serverWhat, (value) => withMcpServer(value, server, mcp), withoutMcpServer),
    ];
  }
  const dir = scope === 'user' ? context.codexHome : path.join(context.cwd, '.codex');
  const config = path.join(dir, 'config.toml');
  const hooks = path.join(dir, 'hooks.json');
  return [
    {
      file: config,
      what: serverWhat,
      format: 'toml',
      add: (text) => withServerTable(text, server, config),
      remove: (text) => withoutServerTable(text, config),
    },
    jsonEdit(hooks, hookWhat, (value) => withHook(value, hook, hooks), withoutHook),
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

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function planInstall(edits: readonly FileEdit[]): FileChange[] {
  return edits.map((edit) => {
    const before = read(edit.file);
    const after = edit.add(before ?? '');
    if (after === before) return { file: edit.file, what: edit.what, action: 'unchanged', before, after };
    const backup = before !== undefined && !existsSync(edit.file + BACKUP_SUFFIX) ? edit.file + BACKUP_SUFFIX : undefined;
    const action = before !== undefined && edit.remove(before) !== before ? 'updated' : 'added';
    return { file: edit.file, what: edit.what, action, before, after, ...(backup === undefined ? {} : { backup }) };
  });
}

function equivalent(format: FileEdit['format'], a: string, b: string): boolean {
  if (format === 'toml') return a.trimEnd() === b.trimEnd();
  try {
    return JSON.stringify(parseSettings(a, '')) === JSON.stringify(parseSettings(b, ''));
  } catch {
    return false;
  }
}

function isEmpty(format: FileEdit['format'], text: string): boolean {
  if (format === 'toml') return text.trim() === '';
  try {
    return Object.keys(parseSettings(text, '')).length === 0;
  } catch {
    return false;
  }
}

export function planUninstall(edits: readonly FileEdit[]): FileChange[] {
  return edits.map((edit) => {
    const before = read(edit.file);
    const backupFile = edit.file + BACKUP_SUFFIX;
    if (before === undefined) return { file: edit.file, what: edit.what, action: 'absent', before, after: before };
    const removed = edit.remove(before);
    if (removed === before) return { file: edit.file, what: edit.what, action: 'absent', before, after: before };
    const original = read(backupFile);
    const consumed = original === undefined ? {} : { backup: backupFile };
    if (original !== undefined && equivalent(edit.format, removed, original)) {
      return { file: edit.file, what: edit.what, action: 'restored', before, after: original, ...consumed };
    }
    if (original === undefined && isEmpty(edit.format, removed)) {
      return { file: edit.file, what: edit.what, action: 'deleted', before, after: undefined };
    }
    // Something else changed since install: keep those changes, and keep the backup for the user.
    return { file: edit.file, what: edit.what, action: 'removed', before, after: removed };
  });
}

/** Writes install changes: the backup first, then the file (atomically). */
export function applyInstall(changes: readonly FileChange[]): void {
  for (const change of changes) {
    if (change.action === 'unchanged' || change.after === undefined) continue;
    mkdirSync(path.dirname(change.file), { recursive: true });
    if (change.backup !== undefined && change.before !== undefined) writeFileAtomic(change.backup, change.before);
    writeFileAtomic(change.file, change.after);
  }
}

export function applyUninstall(changes: readonly FileChange[]): void {
  for (const change of changes) {
    if (change.action === 'absent') continue;
    if (change.after === undefined) rmSync(change.file, { force: true });
    else writeFileAtomic(change.file, change.after);
    if (change.backup !== undefined) rmSync(change.backup, { force: true });
  }
}
