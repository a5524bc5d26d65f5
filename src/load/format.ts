import type { Diagnostic, ShadowedSkill } from '../types.js';

// Paths and messages can carry any character a file name can; keep every report on one line.
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu;

function oneLine(text: string): string {
  return text.replace(LINE_BREAKING, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line: `skill-search: <path>: <message>`. */
export function formatDiagnostic(d: Diagnostic): string {
  return oneLine(`skill-search: ${d.path}: ${d.message}`);
}

/** One line: `skill-search: duplicate skill "pdf": <winner> shadows <loser>`. */
export function formatShadowed(s: ShadowedSkill): string {
  return oneLine(`skill-search: duplicate skill ${JSON.stringify(s.name)}: ${s.winner.path} shadows ${s.loser.path}`);
}
