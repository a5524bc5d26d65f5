import { type ParsedArgs, parseChoice } from '../args.js';
import { printJson } from '../context.js';
import type { CliIo } from '../io.js';
import { ourEntries } from '../../hosts/install.js';
import { formatSettings, withHook, withMcpServer, DEFAULT_JSON_STYLE } from '../../hosts/json-settings.js';
import { serverTable } from '../../hosts/toml-table.js';
import { HOSTS } from '../../types.js';
import { hostContext } from './install.js';

/** `generic`: the MCP server alone, for any host that takes one. */
const PRINT_CONFIG_HOSTS = ['generic', ...HOSTS] as const;

/** The configuration `install` would merge, printed for a host to paste it by hand. */
export async function runPrintConfig(args: ParsedArgs, io: CliIo): Promise<number> {
  const hostRaw = args.values.host;
  const host = parseChoice('host', typeof hostRaw === 'string' ? hostRaw : 'generic', PRINT_CONFIG_HOSTS);
  const { command } = hostContext(args.values, io);
  const { hook, server } = ourEntries(host === 'codex' ? 'codex' : 'claude-code', command);
  // Each file the host reads, with where it goes (the comment above it in text), and what goes in it.
  const files: { readonly name: string; readonly where?: string; readonly value: Record<string, unknown> | string }[] =
    host === 'generic'
      ? [{ name: 'mcp.json', value: { mcpServers: { 'skill-search': server } } }]
      : host === 'claude-code'
        ? [
            { name: 'settings.json', where: '~/.claude/settings.json (or .claude/settings.json in a project)', value: withHook({}, hook, 'settings.json') },
            {
              name: '.mcp.json',
              where: `.mcp.json in a project (user-wide: claude mcp add --scope user skill-search -- ${[server.command, ...server.args].join(' ')})`,
              value: withMcpServer({}, server, '.mcp.json'),
            },
          ]
        : [
            { name: 'config.toml', where: '~/.codex/config.toml', value: serverTable(server) },
            {
              name: 'hooks.json',
              where: '~/.codex/hooks.json (Codex hooks; older Codex versions also need [features] codex_hooks = true)',
              value: withHook({}, hook, 'hooks.json'),
            },
          ];
  // Keyed by the file they go in (Codex's config.toml as its text).
  if (args.values.json === true) return printJson(io, { host, files: Object.fromEntries(files.map((file) => [file.name, file.value])) });
  for (const { where, value } of files) {
    io.stdout.write(`${where === undefined ? '' : `# ${where}\n`}${typeof value === 'string' ? value : formatSettings(value, DEFAULT_JSON_STYLE)}`);
  }
  return 0;
}
