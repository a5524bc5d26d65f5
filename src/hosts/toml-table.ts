/**
 * The one TOML edit we make: add, replace or remove the `[mcp_servers.skill-search]` table of
 * Codex's `config.toml` as a block of lines, leaving every other byte of the file as it was
 * (comments, order, formatting). A whole TOML library would re-serialise the file; this
 * never has to. A server defined another way (dotted keys, an inline table) is refused, so
 * it is never defined twice.
 */
import { SkillSearchError } from '../errors.js';

export const TOML_SERVER_TABLE = 'mcp_servers.skill-search';

const OUR_HEADER = /^\s*\[\s*mcp_servers\s*\.\s*(?:skill-search|"skill-search"|'skill-search')\s*\]\s*(?:#.*)?$/;
const OUR_SUBTABLE = /^\s*\[\s*mcp_servers\s*\.\s*(?:skill-search|"skill-search"|'skill-search')\s*\./;
const ANY_HEADER = /^\s*\[/;
/** `skill-search` named outside its own table: `mcp_servers.skill-search.x = …` or `skill-search = { … }`. */
const OTHER_FORM = /^\s*(?:mcp_servers\s*\.\s*)?["']?skill-search["']?\s*(?:\.|=\s*\{)/;

export interface TomlServer {
  readonly command: string;
  readonly args: readonly string[];
}

/** A TOML basic string (JSON's escapes are a subset TOML accepts). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

export function serverTable(server: TomlServer): string {
  return [`[${TOML_SERVER_TABLE}]`, `command = ${tomlString(server.command)}`, `args = [${server.args.map(tomlString).join(', ')}]`, ''].join('\n');
}

interface Block {
  readonly start: number;
  /** Exclusive. */
  readonly end: number;
}

function findBlock(lines: readonly string[], file: string): Block | undefined {
  let start = -1;
  let inMcpServers = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (ANY_HEADER.test(line)) {
      if (start >= 0 && !OUR_SUBTABLE.test(line)) return { start, end: i };
      if (start < 0 && OUR_HEADER.test(line)) start = i;
      inMcpServers = /^\s*\[\s*mcp_servers\s*\]/.test(line);
      continue;
    }
    if (start < 0 && OTHER_FORM.test(line) && (inMcpServers || /^\s*mcp_servers\s*\./.test(line))) {
      throw new SkillSearchError(
        'BAD_FILE',
        `${file}:${i + 1}: the "skill-search" MCP server is defined outside a [${TOML_SERVER_TABLE}] table; edit it by hand, nothing was changed`,
      );
    }
  }
  return start >= 0 ? { start, end: lines.length } : undefined;
}

/** `text` with our table added or replaced; the same string when it is already there as wanted. */
export function withServerTable(text: string, server: TomlServer, file: string): string {
  const table = serverTable(server);
  const lines = text.split('\n');
  const block = findBlock(lines, file);
  if (block === undefined) {
    if (text === '') return table;
    const separator = text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    return `${text}${separator}${table}`;
  }
  // Keep blank lines that separate our block from what follows.
  let end = block.end;
  while (end > block.start + 1 && lines[end - 1]!.trim() === '') end--;
  const replaced = [...lines.slice(0, block.start), ...table.trimEnd().split('\n'), ...lines.slice(end)].join('\n');
  return replaced;
}

/** `text` without our table (and the blank line we put before it); the same string when absent. */
export function withoutServerTable(text: string, file: string): string {
  const lines = text.split('\n');
  const block = findBlock(lines, file);
  if (block === undefined) return text;
  let end = block.end;
  while (end > block.start + 1 && lines[end - 1]!.trim() === '') end--;
  let start = block.start;
  if (start > 0 && lines[start - 1]!.trim() === '') start--;
  // One separating blank line goes with the table: the one before it, else those after it.
  else if (block.end < lines.length) end = block.end;
  const kept = [...lines.slice(0, start), ...lines.slice(end)];
  // Removing the last table leaves the file's own final newline as it was.
  return kept.join('\n');
}
