import type { Diagnostic, ShadowedSkill } from '../types.js';
// Paths and messages can carry any character a file name can; keep every report on one line.
import { escapeForTerminal as oneLine } from '../util/escape.js';
import { plural } from '../util/text.js';

/** One line: `skill-search: <path>: <message>`. */
export function formatDiagnostic(d: Diagnostic): string {
  return oneLine(`skill-search: ${d.path}: ${d.message}`);
}

/** One line: `skill-search: duplicate skill "pdf": <winner> shadows <loser>` (or two lines of one tools file). */
export function formatShadowed(s: ShadowedSkill): string {
  if (s.winner.path === s.loser.path) {
    return oneLine(`skill-search: duplicate skill ${JSON.stringify(s.name)}: ${s.loser.path} is the id of two lines; the first is used`);
  }
  return oneLine(`skill-search: duplicate skill ${JSON.stringify(s.name)}: ${s.winner.path} shadows ${s.loser.path}`);
}

/** Why a folder the user named gave no skills (`SourceDir.required`). */
export const FOLDER_PROBLEMS = {
  missing: 'no such folder',
  notFolder: 'is not a folder',
  missingCwd: 'no such folder (the `cwd` option): no project skills were read',
} as const;

/** The skill files and folders, tools-file lines and MCP skills the errors among `diagnostics` kept out, counted (`2 skill files and 1 tools-file line`), or undefined. */
export function skippedSummary(diagnostics: readonly Diagnostic[]): string | undefined {
  let files = 0;
  let folders = 0;
  let lines = 0;
  let mcp = 0;
  for (const d of diagnostics) {
    if (d.severity !== 'error' || d.code === 'shadowed') continue;
    if (d.path.startsWith('mcp:')) mcp += 1;
    else if (/:\d+$/.test(d.path)) lines += 1;
    else if (Object.values(FOLDER_PROBLEMS).includes(d.message as never)) folders += 1;
    else files += 1;
  }
  const parts = [count(files, 'skill file'), count(folders, 'skill folder'), count(lines, 'tools-file line'), count(mcp, 'MCP skill')].filter(
    (part) => part !== '',
  );
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

function count(n: number, noun: string): string {
  return n === 0 ? '' : plural(n, noun);
}
