import type { Diagnostic, ShadowedSkill } from '../types.js';
// Paths and messages can carry any character a file name can; keep every report on one line.
import { escapeForTerminal as oneLine } from '../util/escape.js';

/** One line: `skill-search: <path>: <message>`. */
export function formatDiagnostic(d: Diagnostic): string {
  return oneLine(`skill-search: ${d.path}: ${d.message}`);
}

/**
 * One line: `skill-search: duplicate skill "pdf": <winner> shadows <loser>`; two lines of a
 * tools file with one id have one path, and are told as that.
 */
export function formatShadowed(s: ShadowedSkill): string {
  if (s.winner.path === s.loser.path) {
    return oneLine(`skill-search: duplicate skill ${JSON.stringify(s.name)}: ${s.loser.path} is the id of two lines; the first is used`);
  }
  return oneLine(`skill-search: duplicate skill ${JSON.stringify(s.name)}: ${s.winner.path} shadows ${s.loser.path}`);
}
