import { statSync } from 'node:fs';
import type { ParsedArgs } from '../args.js';
import { line, printJson } from '../context.js';
import { shown } from '../format.js';
import { type CliIo, homeDir } from '../io.js';
import { existingLibraryDirs, resolveSources } from '../sources.js';
import { DEFAULT_ORIGIN } from '../../config/user-config.js';
import { FOLDER_PROBLEMS } from '../../load/format.js';

/** The merged user and project config, each value with the file it came from. */
export async function runConfig(args: ParsedArgs, io: CliIo): Promise<number> {
  const sources = resolveSources(args.values, io);
  const { config } = sources;
  const libraryDirs = existingLibraryDirs(sources);
  if (args.values.json === true) return printJson(io, { ...config, libraryDirs });
  const home = homeDir(io.env);
  const origin = (from: string) => (from === DEFAULT_ORIGIN ? '(default)' : shown(from, home));
  line(
    io.stdout,
    `files: ${config.files.length === 0 ? '(none: ~/.claude/skill-search.json, .claude/skill-search.json)' : config.files.map((file) => shown(file, home)).join(', ')}`,
  );
  for (const key of ['include', 'exclude', 'pin', 'never', 'library'] as const) {
    if (config[key].length === 0) line(io.stdout, `${key}: (none)`);
    for (const entry of config[key]) {
      // A library folder that is not there is read by nothing: said here, where the user looks for why its skills are missing.
      const problem = key === 'library' ? folderProblem(entry.value) : undefined;
      const missing = problem === undefined ? '' : `  (${problem}: not read)`;
      line(io.stdout, `${key}: ${JSON.stringify(entry.value)}  ${origin(entry.from)}${missing}`);
    }
  }
  for (const [key, entry] of Object.entries(config.sources)) {
    const value = entry.value === undefined ? '(per command: auto; never for hook and mcp)' : JSON.stringify(entry.value);
    line(io.stdout, `sources.${key}: ${value}  ${origin(entry.from)}`);
  }
  line(io.stdout, `library folders in use: ${libraryDirs.length === 0 ? '(none)' : libraryDirs.join(', ')}`);
  return 0;
}

/** Why a library folder of the config cannot be read, or undefined when it is a folder. */
function folderProblem(dir: string): string | undefined {
  const stats = statSync(dir, { throwIfNoEntry: false });
  if (stats === undefined) return FOLDER_PROBLEMS.missing;
  return stats.isDirectory() ? undefined : FOLDER_PROBLEMS.notFolder;
}
