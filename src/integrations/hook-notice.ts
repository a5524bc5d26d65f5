import type { HostName } from '../types.js';

/** The stdout line that shows a problem to the user of `host` (Claude Code's `systemMessage`), or `''` (Codex: its stderr line only). */
export function hookNotice(host: HostName, line: string): string {
  return host === 'claude-code' ? `${JSON.stringify({ systemMessage: line })}\n` : '';
}
