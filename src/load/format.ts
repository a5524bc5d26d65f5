import type { Diagnostic, ShadowedSkill } from '../types.js';

/** One line: `skill-search: <path>: <message>`. */
export function formatDiagnostic(d: Diagnostic): string {
  return `skill-search: ${d.path}: ${d.message}`;
}

/** One line: `skill-search: duplicate skill "pdf": <winner> shadows <loser>`. */
export function formatShadowed(s: ShadowedSkill): string {
  return `skill-search: duplicate skill ${JSON.stringify(s.name)}: ${s.winner.path} shadows ${s.loser.path}`;
}
