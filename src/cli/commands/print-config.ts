import type { ParsedArgs } from '../args.js';
import { parseChoice } from '../args.js';
import { printJson } from '../context.js';
import type { CliIo } from '../io.js';
import { HOOK_HOST_TIMEOUT_S, hookCommand } from '../../hosts/install.js';
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
  const server = { command: command[0]!, args: [...command.slice(1), 'mcp'] };
  const json = (value: Record<string, unknown>) => formatSettings(value, DEFAULT_JSON_STYLE);
  if (args.values.json === true) {
    // The same settings as objects (Codex's config.toml as its text), keyed by the file they go in.
    const hook = { command: hookCommand(host === 'codex' ? 'codex' : 'claude-code', command), timeout: HOOK_HOST_TIMEOUT_S };
    const files =
      host === 'generic'
        ? { 'mcp.json': { mcpServers: { 'skill-search': server } } }
        : host === 'claude-code'
          ? { 'settings.json': withHook({}, hook, 'settings.json'), '.mcp.json': withMcpServer({}, server, '.mcp.json') }
          : { 'config.toml': serverTable(server), 'hooks.json': withHook({}, hook, 'hooks.json') };
    printJson(io, { host, files });
    return 0;
  }
  switch (host) {
    case 'generic': {
      io.stdout.write(json({ mcpServers: { 'skill-search': { command: server.command, args: server.args } } }));
      break;
    }
    case 'claude-code': {
      const hook = { command: hookCommand('claude-code', command), timeout: HOOK_HOST_TIMEOUT_S };
      io.stdout.write(`# ~/.claude/settings.json (or .claude/settings.json in a project)\n${json(withHook({}, hook, 'settings.json'))}`);
      io.stdout.write(`# .mcp.json in a project (user-wide: claude mcp add --scope user skill-search -- ${[server.command, ...server.args].join(' ')})\n`);
      io.stdout.write(json(withMcpServer({}, server, '.mcp.json')));
      break;
    }
    case 'codex': {
      const hook = { command: hookCommand('codex', command), timeout: HOOK_HOST_TIMEOUT_S };
      io.stdout.write(`# ~/.codex/config.toml\n${serverTable(server)}`);
      io.stdout.write(
        `# ~/.codex/hooks.json (Codex hooks; older Codex versions also need [features] codex_hooks = true)\n${json(withHook({}, hook, 'hooks.json'))}`,
      );
      break;
    }
  }
  return 0;
}
