/**
 * Edits of a host's JSON settings file that touch only our own entries: the prompt hook
 * (`hooks.UserPromptSubmit[].hooks[]`, the same shape in Claude Code and Codex) and the MCP
 * server (`mcpServers.skill-search`). Everything else, key order included, is kept; the
 * file's indentation and final newline are reused when it is written back.
 */
import { SkillSearchError, notJson } from '../errors.js';

export type JsonObject = Record<string, unknown>;

export interface JsonStyle {
  readonly indent: string;
  readonly finalNewline: boolean;
}

export const DEFAULT_JSON_STYLE: JsonStyle = Object.freeze({ indent: '  ', finalNewline: true });

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object in `text`; `{}` for an empty file. The error names the file. */
export function parseSettings(text: string, file: string): JsonObject {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw notJson(file, error, '; fix it or move it away, nothing was changed');
  }
  if (!isObject(value)) throw new SkillSearchError('BAD_FILE', `${file}: expected a JSON object at the top level; nothing was changed`);
  return value;
}

export function detectStyle(text: string): JsonStyle {
  const indent = /^[{[]\s*\n([ \t]+)\S/.exec(text)?.[1] ?? DEFAULT_JSON_STYLE.indent;
  return { indent, finalNewline: text === '' || text.endsWith('\n') };
}

export function formatSettings(value: JsonObject, style: JsonStyle): string {
  return `${JSON.stringify(value, null, style.indent)}${style.finalNewline ? '\n' : ''}`;
}

export const HOOK_EVENT = 'UserPromptSubmit';
export const MCP_SERVER_KEY = 'skill-search';

/** A command hook is ours when it runs `skill-search … hook <host>` (any path to the bin). */
export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /(?:^|[\s/\\"'])skill-search(?:\.js)?["']?\s+hook\s+(?:claude-code|codex)\b/.test(command);
}

export interface HookEntry {
  readonly command: string;
  /** Seconds the host waits; the hook keeps its own, shorter budget. */
  readonly timeout: number;
}

/** `value` with our hook added (or its command updated). Returns the same object when nothing changes. */
export function withHook(value: JsonObject, hook: HookEntry, file: string): JsonObject {
  const hooks = value.hooks ?? {};
  if (!isObject(hooks)) throw new SkillSearchError('BAD_FILE', `${file}: "hooks" is not an object; nothing was changed`);
  const groups = hooks[HOOK_EVENT] ?? [];
  if (!Array.isArray(groups)) throw new SkillSearchError('BAD_FILE', `${file}: "hooks.${HOOK_EVENT}" is not an array; nothing was changed`);
  let found = false;
  const updated = groups.map((group: unknown) => {
    if (!isObject(group) || !Array.isArray(group.hooks)) return group;
    const handlers = group.hooks.map((handler: unknown) => {
      if (!isObject(handler) || !isOurHookCommand(handler.command)) return handler;
      found = true;
      return handler.command === hook.command ? handler : { ...handler, command: hook.command };
    });
    return { ...group, hooks: handlers };
  });
  if (found) {
    const next = { ...value, hooks: { ...hooks, [HOOK_EVENT]: updated } };
    return JSON.stringify(next) === JSON.stringify(value) ? value : next;
  }
  const ours = { hooks: [{ type: 'command', command: hook.command, timeout: hook.timeout }] };
  return { ...value, hooks: { ...hooks, [HOOK_EVENT]: [...groups, ours] } };
}

/** `value` without our hook handlers; groups and maps left empty by that are removed. */
export function withoutHook(value: JsonObject): JsonObject {
  const hooks = value.hooks;
  if (!isObject(hooks) || !Array.isArray(hooks[HOOK_EVENT])) return value;
  let removed = false;
  const groups = (hooks[HOOK_EVENT] as unknown[]).flatMap((group) => {
    if (!isObject(group) || !Array.isArray(group.hooks)) return [group];
    const handlers = group.hooks.filter((handler: unknown) => !(isObject(handler) && isOurHookCommand(handler.command)));
    if (handlers.length === group.hooks.length) return [group];
    removed = true;
    return handlers.length === 0 ? [] : [{ ...group, hooks: handlers }];
  });
  if (!removed) return value;
  const { [HOOK_EVENT]: _dropped, ...otherEvents } = hooks;
  const nextHooks = groups.length === 0 ? otherEvents : { ...otherEvents, [HOOK_EVENT]: groups };
  const { hooks: _old, ...rest } = value;
  return Object.keys(nextHooks).length === 0 ? rest : { ...value, hooks: nextHooks };
}

export interface McpServerEntry {
  readonly command: string;
  readonly args: readonly string[];
}

export function withMcpServer(value: JsonObject, server: McpServerEntry, file: string): JsonObject {
  const servers = value.mcpServers ?? {};
  if (!isObject(servers)) throw new SkillSearchError('BAD_FILE', `${file}: "mcpServers" is not an object; nothing was changed`);
  const entry = { type: 'stdio', command: server.command, args: [...server.args] };
  const current = servers[MCP_SERVER_KEY];
  if (isObject(current) && current.command === entry.command && JSON.stringify(current.args) === JSON.stringify(entry.args)) return value;
  return { ...value, mcpServers: { ...servers, [MCP_SERVER_KEY]: isObject(current) ? { ...current, ...entry } : entry } };
}

export function withoutMcpServer(value: JsonObject): JsonObject {
  const servers = value.mcpServers;
  if (!isObject(servers) || !(MCP_SERVER_KEY in servers)) return value;
  const { [MCP_SERVER_KEY]: _dropped, ...others } = servers;
  const { mcpServers: _old, ...rest } = value;
  return Object.keys(others).length === 0 ? rest : { ...value, mcpServers: others };
}
