import path from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { type ParsedArgs, type ParsedValues, flagError, parsePositionalChoice } from '../args.js';
import { type CliIo, codexHomeDir, homeDir } from '../io.js';
import { line, printJson } from '../context.js';
import { shown } from '../format.js';
import { requirePath } from '../sources.js';
import { resolveHostCommand } from '../../hosts/command.js';
import { readHostFile } from '../../hosts/host-file.js';
import { TOML_SERVER_TABLE, userServer } from '../../hosts/toml-table.js';
import {
  applyChanges,
  hostFiles,
  installEdits,
  planInstall,
  planUninstall,
  type FileChange,
  type InstallContext,
  type InstallScope,
} from '../../hosts/install.js';
import { HOST_TITLES, HOSTS } from '../../types.js';

export function scopeOf(values: ParsedValues): InstallScope {
  if (values.project === true && values.user === true) throw flagError('--project and --user cannot be used together');
  return values.project === true ? 'project' : 'user';
}

/** The folders and the command a host's entries are about (`install`, `uninstall`, `doctor`), from the flags. */
export function hostContext(values: ParsedValues, io: CliIo): InstallContext {
  const home = homeDir(io.env);
  const cwdRaw = values.cwd;
  const cwd = typeof cwdRaw === 'string' ? requirePath('cwd', cwdRaw, 'directory', io.cwd) : path.resolve(io.cwd);
  const commandRaw = values.command;
  if (typeof commandRaw === 'string' && commandRaw.trim() === '') throw flagError('--command expects a command, got an empty string');
  return {
    home,
    cwd,
    codexHome: codexHomeDir(io.env, home),
    command: typeof commandRaw === 'string' ? [commandRaw] : resolveHostCommand(io.env),
  };
}

/**
 * Plans `install` or `uninstall` for the host and scope the flags name, applies it unless `--dry-run`, and
 * reports the changes (with `--json`, as one object, the command the host will run with `install`).
 */
function change(command: 'install' | 'uninstall', args: ParsedArgs, io: CliIo) {
  const host = parsePositionalChoice(command, 'host', args.positionals[0], HOSTS);
  const scope = scopeOf(args.values);
  const context = hostContext(args.values, io);
  const { home } = context;
  const dryRun = args.values['dry-run'] === true;
  const edits = installEdits(host, scope, context);
  const changes = command === 'install' ? planInstall(edits) : planUninstall(edits);
  if (!dryRun) applyChanges(changes);
  const json = args.values.json === true;
  if (json) {
    printJson(io, {
      host,
      scope,
      dryRun,
      ...(command === 'install' ? { command: context.command } : {}),
      // JSON leaves out an undefined `backup`.
      changes: changes.map(({ file, action, what, backup }) => ({ file, action, what, backup })),
    });
  } else report(io, changes, home, dryRun);
  return { host, scope, home, dryRun, json, command: context.command, files: hostFiles(host, scope, context) };
}

function report(io: CliIo, changes: readonly FileChange[], home: string, dryRun: boolean): void {
  for (const change of changes) {
    const file = shown(change.file, home);
    const verb = {
      added: 'added',
      updated: 'updated',
      unchanged: 'already has',
      removed: 'removed',
      restored: 'removed, and the original file restored from the backup:',
      deleted: 'removed, and deleted the file (it did not exist before install):',
      absent: 'does not have',
    }[change.action];
    const backup =
      change.backup !== undefined && (change.action === 'added' || change.action === 'updated') ? ` (original kept in ${shown(change.backup, home)})` : '';
    line(io.stdout, `${dryRun ? 'would change: ' : ''}${file}: ${verb} ${change.what}${backup}`);
    // A unified diff of the file's text, two lines of context.
    const [before, after] = [change.before ?? '', change.after ?? ''];
    if (dryRun && before !== after)
      io.stdout.write(createTwoFilesPatch(file, file, before, after, undefined, undefined, { context: 2, headerOptions: FILE_HEADERS_ONLY }));
  }
}

/** Codex's own `[mcp_servers.skill-search]` left as the user wrote it, said once. */
function reportUserServer(io: CliIo, file: string, home: string): void {
  const text = readHostFile(file);
  if (text !== undefined && userServer(text, file) !== undefined) {
    line(io.stdout, `${shown(file, home)}: has its own [${TOML_SERVER_TABLE}] (not written by install); left as it is`);
  }
}

export async function runInstall(args: ParsedArgs, io: CliIo): Promise<number> {
  const { host, scope, home, dryRun, json, command, files } = change('install', args, io);
  if (json) return 0;
  if (host === 'codex') reportUserServer(io, files.mcp, home);
  if (dryRun) return 0;
  if (command[0] !== 'skill-search') {
    line(
      io.stderr,
      `skill-search: 'skill-search' is not on PATH, so ${HOST_TITLES[host]} will run '${command.join(' ')}'; 'npm install -g .' in the clone puts it on PATH`,
    );
  }
  line(
    io.stdout,
    `Installed for ${HOST_TITLES[host]} (${scope}). Restart ${HOST_TITLES[host]} to load it; 'skill-search uninstall ${host}${scope === 'project' ? ' --project' : ''}' takes it out again.`,
  );
  if (host === 'codex') {
    line(
      io.stdout,
      `Codex runs a hook only once it is trusted: install recorded the trust for this hook in ${shown(files.trust!, home)}. If you edit the hook or move it in ${shown(files.hooks, home)}, trust it again in Codex (/hooks); 'skill-search doctor codex${scope === 'project' ? ' --project' : ''}' checks it.`,
    );
    if (scope === 'project') line(io.stdout, `Codex loads ${shown(files.hooks, home)} only in a project folder you have trusted in Codex.`);
  }
  return 0;
}

export async function runUninstall(args: ParsedArgs, io: CliIo): Promise<number> {
  const { host, scope, dryRun, json } = change('uninstall', args, io);
  if (!dryRun && !json) line(io.stdout, `Uninstalled from ${HOST_TITLES[host]} (${scope}).`);
  return 0;
}
