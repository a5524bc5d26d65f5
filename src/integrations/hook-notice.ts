/**
 * What a prompt hook prints when something is wrong, beside its stderr line: Claude Code shows a
 * hook's `systemMessage` to the user; Codex gets nothing on stdout (its line is on stderr).
 */
import type { HostName } from '../types.js';

/** The stdout line that shows `line` to the user of `host` (Claude Code's `systemMessage`), or `''` where the host would not show it. */
export function hookNotice(host: HostName, line: string): string {
  return host === 'claude-code' ? `${JSON.stringify({ systemMessage: line })}\n` : '';
}
