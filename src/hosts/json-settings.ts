/**
 * Edits of a host's JSON settings file, in place (json-text.ts), of our own entries only: the
 * prompt hook (`hooks.UserPromptSubmit[].hooks[]`, the same in Claude Code and Codex) and the
 * MCP server (`mcpServers.skill-search`). Removing what install added gives the original bytes back.
 */
import { SkillSearchError, notJson } from '../errors.js';
import { isRecord } from '../util/json-file.js';
import { removeFirstOf, setAt } from './json-text.js';

export type JsonObject = Record<string, unknown>;

export type JsonStyle = { readonly indent: string; readonly finalNewline: boolean };

export const DEFAULT_JSON_STYLE: JsonStyle = Object.freeze({ indent: '  ', finalNewline: true });

/** The object in `text`; `{}` for an empty file. The error names the file. */
export function parseSettings(text: string, file: string): JsonObject {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw notJson(file, error, '; fix it or move it away, nothing was changed');
  }
  if (!isRecord(value)) throw new SkillSearchError('BAD_FILE', `${file}: expected a JSON object at the top level; nothing was changed`);
  return value;
}

function detectStyle(text: string): JsonStyle {
  const indent = /^[{[]\s*\n([ \t]+)\S/.exec(text)?.[1] ?? DEFAULT_JSON_STYLE.indent;
  return { indent, finalNewline: text === '' || text.endsWith('\n') };
}

export function formatSettings(value: JsonObject, style: JsonStyle): string {
  return `${JSON.stringify(value, null, style.indent)}${style.finalNewline ? '\n' : ''}`;
}

const HOOK_EVENT = 'UserPromptSubmit';
export const MCP_SERVER_KEY = 'skill-search';

/** A command hook is ours when it runs `skill-search … hook <host>` (any path to the bin). */
export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /(?:^|[\s/\\"'])skill-search(?:\.js)?["']?\s+hook\s+(?:claude-code|codex)\b/.test(command);
}

/** `timeout`: seconds the host waits (the hook keeps its own, shorter budget). */
export type HookEntry = { readonly command: string; readonly timeout: number };

/** Where one of our handlers sits: `hooks.UserPromptSubmit[group].hooks[handler]`. */
export interface HookPosition {
  readonly group: number;
  readonly handler: number;
  readonly entry: JsonObject;
}

function hookGroups(value: JsonObject, file: string): unknown[] | undefined {
  const hooks = value.hooks;
  if (hooks === undefined) return undefined;
  if (!isRecord(hooks)) throw new SkillSearchError('BAD_FILE', `${file}: "hooks" is not an object; nothing was changed`);
  const groups = hooks[HOOK_EVENT];
  if (groups === undefined) return undefined;
  if (!Array.isArray(groups)) throw new SkillSearchError('BAD_FILE', `${file}: "hooks.${HOOK_EVENT}" is not an array; nothing was changed`);
  return groups;
}

/** Our handlers in a parsed settings file, in file order. */
export function ourHookPositions(value: JsonObject, file: string): HookPosition[] {
  const positions: HookPosition[] = [];
  (hookGroups(value, file) ?? []).forEach((group, g) => {
    if (!isRecord(group) || !Array.isArray(group.hooks)) return;
    group.hooks.forEach((entry: unknown, h) => {
      if (isRecord(entry) && isOurHookCommand(entry.command)) positions.push({ group: g, handler: h, entry });
    });
  });
  return positions;
}

function ourGroup(hook: HookEntry): JsonObject {
  return { hooks: [{ type: 'command', command: hook.command, timeout: hook.timeout }] };
}

/** `text` with our hook added (or its command updated); the same string when nothing changes. */
export function withHookText(text: string, hook: HookEntry, file: string): string {
  const value = parseSettings(text, file);
  const style = detectStyle(text);
  if (text.trim() === '') return formatSettings({ hooks: { [HOOK_EVENT]: [ourGroup(hook)] } }, style);
  const ours = ourHookPositions(value, file);
  if (ours.length === 0) return setAt(text, ['hooks', HOOK_EVENT, -1], ourGroup(hook), style.indent);
  // Later nodes first, so the offsets of earlier ones stay valid.
  return ours.reduceRight(
    (next, { group, handler, entry }) =>
      entry.command === hook.command ? next : setAt(next, ['hooks', HOOK_EVENT, group, 'hooks', handler, 'command'], hook.command, style.indent),
    text,
  );
}

/** `text` without our hook handlers; groups and maps left empty by that are removed. */
export function withoutHookText(text: string, file: string): string {
  const ours = ourHookPositions(parseSettings(text, file), file);
  // Each handler, and the group, event list and `hooks` map it leaves empty.
  const paths = ({ group, handler }: HookPosition) => [
    ['hooks', HOOK_EVENT, group, 'hooks', handler],
    ['hooks', HOOK_EVENT, group],
    ['hooks', HOOK_EVENT],
    ['hooks'],
  ];
  return ours.reduceRight((next, position) => removeFirstOf(next, paths(position)), text);
}

export type McpServerEntry = { readonly command: string; readonly args: readonly string[] };

function serversOf(value: JsonObject, file: string): JsonObject | undefined {
  const servers = value.mcpServers;
  if (servers !== undefined && !isRecord(servers)) throw new SkillSearchError('BAD_FILE', `${file}: "mcpServers" is not an object; nothing was changed`);
  return servers;
}

/** `text` with our MCP server added or its command updated (other fields of the entry are kept). */
export function withMcpServerText(text: string, server: McpServerEntry, file: string): string {
  const value = parseSettings(text, file);
  const style = detectStyle(text);
  const entry = { type: 'stdio', command: server.command, args: [...server.args] };
  if (text.trim() === '') return formatSettings({ mcpServers: { [MCP_SERVER_KEY]: entry } }, style);
  const servers = serversOf(value, file);
  const current = servers?.[MCP_SERVER_KEY];
  if (isRecord(current) && current.command === entry.command && JSON.stringify(current.args) === JSON.stringify(entry.args)) return text;
  const path = ['mcpServers', MCP_SERVER_KEY];
  if (!isRecord(current)) return setAt(text, path, entry, style.indent);
  return Object.entries(entry).reduce(
    (next, [key, field]) => (JSON.stringify(current[key]) === JSON.stringify(field) ? next : setAt(next, [...path, key], field, style.indent)),
    text,
  );
}

export function withoutMcpServerText(text: string, file: string): string {
  const servers = serversOf(parseSettings(text, file), file);
  if (servers === undefined || !(MCP_SERVER_KEY in servers)) return text;
  return removeFirstOf(text, [['mcpServers', MCP_SERVER_KEY], ['mcpServers']]);
}

/** The settings object with our hook, for printing (`print-config`). */
export function withHook(value: JsonObject, hook: HookEntry, file: string): JsonObject {
  return parseSettings(withHookText(formatSettings(value, DEFAULT_JSON_STYLE), hook, file), file);
}

/** The settings object with our MCP server, for printing (`print-config`). */
export function withMcpServer(value: JsonObject, server: McpServerEntry, file: string): JsonObject {
  return parseSettings(withMcpServerText(formatSettings(value, DEFAULT_JSON_STYLE), server, file), file);
}
