/**
 * What a prompt hook prints when something is wrong, beside its stderr line: Claude Code shows a
 * hook's `systemMessage` to the user; Codex gets nothing on stdout (its line is on stderr).
 */
import type { HostName } from '../types.js';

export interface ClaudeCodeHookNotice {
  readonly systemMessage: string;
}

/** The stdout line that shows `line` to the user of `host`, or `''` where the host would not show it. */
export function hookNotice(host: HostName, line: string): string {
  if (host !== 'claude-code') return '';
  const notice: ClaudeCodeHookNotice = { systemMessage: line };
  return `${JSON.stringify(notice)}\n`;
}
