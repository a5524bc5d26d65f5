/**
 * The `[mcp_servers.skill-search]` table of Codex's `config.toml`, edited as a block of lines
 * (toml-lines.ts). A `skill-search` server that is not ours is the user's: never replaced or removed.
 */
import type { McpServerEntry } from './json-settings.js';
import { parseToml, tomlKey, tomlString, valueAt, withTableKeys } from './toml-lines.js';

const SERVER_PATH = ['mcp_servers', 'skill-search'] as const;
export const TOML_SERVER_TABLE = tomlKey(SERVER_PATH);

export function serverTable(server: McpServerEntry): string {
  return [`[${TOML_SERVER_TABLE}]`, `command = ${tomlString(server.command)}`, `args = [${server.args.map(tomlString).join(', ')}]`, ''].join('\n');
}

/** A table install writes: only `command` and `args`, running `… skill-search[.js] … mcp`. */
export function isOurServer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { command, args, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof command !== 'string' || !Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return false;
  const words = [command, ...args];
  return words.at(-1) === 'mcp' && words.some((word) => /(?:^|[/\\])skill-search(?:\.js)?$/.test(word));
}

/** The user's own `skill-search` server in `text`, which install leaves alone; undefined when none or ours. */
export function userServer(text: string, file: string): unknown {
  const current = valueAt(parseToml(text, file), SERVER_PATH);
  return current === undefined || isOurServer(current) ? undefined : current;
}

/** `text` with our table added or updated; the same string when it is there as wanted, or the user has their own. */
export function withServerTable(text: string, server: McpServerEntry, file: string): string {
  if (userServer(text, file) !== undefined) return text;
  const byHand = `add this table by hand: ${serverTable(server).trimEnd().replaceAll('\n', '; ')}`;
  return withTableKeys(text, SERVER_PATH, { command: server.command, args: server.args }, file, byHand);
}

/** `text` without our table (and the blank line we put before it); the same string when it is absent or the user's. */
export function withoutServerTable(text: string, file: string): string {
  if (!isOurServer(valueAt(parseToml(text, file), SERVER_PATH))) return text;
  return withTableKeys(text, SERVER_PATH, { command: undefined, args: undefined }, file, `remove [${TOML_SERVER_TABLE}] by hand`);
}
