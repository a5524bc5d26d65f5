import type { CommandEntry } from './args.js';
import { CONTEXT_WINDOW_OPTION, DEFAULT_EVAL_K, INSTALL_OPTIONS, JSON_OPTION, MODEL_OPTIONS, QUIET_OPTION, SOURCE_OPTIONS, retrievalOptions } from './flags.js';
import { HOOK_COMMAND } from './hook-main.js';

/** The command table: names, flags and help; a command's code is imported when it runs (`validate` never loads a model). */

const WATCH_SPEC: Omit<CommandEntry, 'load'> = {
  summary: 'Keep the index live (reindex on every skill change, one line per event) and serve searches on a local socket, until Ctrl-C.',
  options: {
    ...SOURCE_OPTIONS,
    ...MODEL_OPTIONS,
    polling: { type: 'boolean', description: 'poll the file system (for network or container mounts)' },
    'no-server': { type: 'boolean', description: 'only keep the index fresh; do not serve searches' },
    ...JSON_OPTION,
  },
  notes: [
    "While it runs, 'skill-search hook claude-code' and 'skill-search query' for the same skills and",
    '--model ask it over a local socket (<index dir>/server.sock, mode 0600; a named pipe on Windows)',
    'instead of loading the index and model themselves: a hook then answers in a few hundred ms. They',
    'fall back to searching in-process whenever no server answers. Start it in the folder Claude Code',
    'runs in (or pass the same --cwd / --skills-dir / --tools / --index-dir as the hook), with the same',
    'SKILL_SEARCH_CACHE_DIR. A socket left by a killed server is replaced; Ctrl-C removes it.',
    'Protocol: one JSON object per line: {"id","op":"search","query","k","mode","abstain","explain"} ->',
    '{"id","hits":[{"name","source","score","path","description","whenToUse","why" (with explain)}],"tookMs","skills"};',
    '{"id","op":"ping"} -> {"id","pong":true,"pid","version","skills"}; errors -> {"id","error":{"code","message"}}.',
  ].join('\n'),
};

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  query: {
    summary: 'Print the skills ranked for a message (best first); says so when nothing fits.',
    usage: '[options] "<message>" | -',
    positionals: { min: 1, max: Infinity, name: 'a message' },
    options: {
      ...SOURCE_OPTIONS,
      ...retrievalOptions(),
      ...JSON_OPTION,
      ...QUIET_OPTION,
      explain: { type: 'boolean', description: 'show why each skill was suggested: words matched per field, similarity, relevance factors, threshold' },
    },
    notes:
      `'-' in place of the message reads it from stdin (a message longer than the shell passes as an argument, 128 KiB on Linux).\n` +
      'A score is the estimated probability (0 to 1) that the skill fits the message, comparable across messages and modes; 1 = named exactly.\n--json prints {"query","queryLength"?,"hits":[{"name","source","score","path","never"?:{"pattern","from"}}],"tookMs"} (query: the message, cut to 1,000 characters ending … when longer, its length then in queryLength; never: the config pattern that keeps it from the hook and the MCP server); with --explain each hit also has "why":\n{"matched":{"<field>":[terms]},"lexical":{"bm25","coverage"},"dense":{"cosine","centered"},"order","answerable","fits","threshold","passed","named"?,"translation"?:{"language","english"}}, and an empty answer has "nothingShown":{"answerable","threshold","best"?:{"name","score","fits"}}.\nWhile \'skill-search watch\' runs for the same skills and --model, the search is sent to it (same answer, no model to load).',
    load: async () => (await import('./commands/query.js')).runQuery,
  },
  list: {
    summary: 'Print the skill_listing exactly as the model sees it; shadowed names go to stderr.',
    options: {
      ...SOURCE_OPTIONS,
      experimental: { type: 'boolean', description: 'narrow the listing to bundled and MCP skills (EXPERIMENTAL_SKILL_SEARCH)' },
      all: { type: 'boolean', description: 'after the listing, name the skills a host rule keeps from the model or the user, and why' },
      host: {
        type: 'string',
        placeholder: 'HOST',
        description: 'claude-code or codex: predict the listing that host sends instead of the seed rules',
        defaultText: 'the seed rules',
      },
      ...CONTEXT_WINDOW_OPTION,
      ...JSON_OPTION,
    },
    load: async () => (await import('./commands/list.js')).runList,
  },
  index: {
    summary: 'Build or refresh the persistent index (only changed skills are re-embedded); progress on stderr.',
    options: { ...SOURCE_OPTIONS, ...MODEL_OPTIONS, ...JSON_OPTION, ...QUIET_OPTION },
    load: async () => (await import('./commands/index-cmd.js')).runIndex,
  },
  watch: {
    ...WATCH_SPEC,
    load: async () => (await import('./commands/watch.js')).runWatch,
  },
  serve: {
    ...WATCH_SPEC,
    summary: "Same as 'watch': keep the index live and serve searches to hooks and queries on a local socket.",
    load: async () => (await import('./commands/watch.js')).runWatch,
  },
  eval: {
    summary: 'Hit rate, recall, MRR, nDCG and latency over a labelled query file.',
    usage: '--queries FILE [options]',
    options: {
      queries: { type: 'string', placeholder: 'FILE', description: 'JSONL lines {"id","query","relevant":[names or ids]} (required)' },
      'per-query': {
        type: 'string',
        placeholder: 'FILE',
        description: 'also write one JSONL line per query: id, query, relevant, ranked names and scores, what was shown, why it abstained',
      },
      config: {
        type: 'string',
        placeholder: 'FILE',
        description: 'JSON of engine knobs for this run, e.g. {"fieldBoosts":{"body":0},"hnsw":{"efSearch":64}} (fields of EngineOptions; docs/retrieval.md)',
      },
      ...SOURCE_OPTIONS,
      ...retrievalOptions(DEFAULT_EVAL_K),
      ...JSON_OPTION,
    },
    notes: [
      'Two views in one run: ranking metrics with abstention off (where the right skill is ranked), and',
      'what a user is shown with abstention on (as query, the hook and prefetch apply it): hit@1, hit@5',
      'and blank (nothing shown) over the answerable queries; "relevant": [] queries score abstain.',
      '--json prints {"queries","k","mode","hitAt1","hitAt5","hitAt10","recallAt5","recallAt10","mrr","ndcgAt10",',
      '"abstain":{"queries","correct"},"shown":{"hitAt1","hitAt5","blank","answerable"},"latencyMs":{"p50","p95","p99"},',
      '"byLanguage":{"<language>":{"queries","hitAt1","hitAt5","mrr"}}}; languages by the script each query is written in (zh, ja, ko, en).',
      'With --config, the knobs it sets are echoed (text: an "overrides" line; --json: an "overrides" object); --k, --mode and',
      '--abstain given as flags win over the file.',
    ].join('\n'),
    load: async () => (await import('./commands/eval.js')).runEval,
  },
  validate: {
    summary: 'List every skill file with a problem, and why, plus shadowed names; exit 1 if any error.',
    options: { ...SOURCE_OPTIONS, ...JSON_OPTION },
    load: async () => (await import('./commands/validate.js')).runValidate,
  },
  hook: HOOK_COMMAND,
  mcp: {
    summary: 'Serve the tools search_skills and read_skill over MCP on stdio (logs go to stderr).',
    options: {
      ...SOURCE_OPTIONS,
      ...retrievalOptions(),
      polling: { type: 'boolean', description: 'poll the file system for skill changes' },
    },
    load: async () => (await import('./commands/mcp.js')).runMcp,
  },
  model: {
    summary: 'Download and manage stronger embedding models: list | pull <id> | rm <id> | info <id>.',
    usage: 'list | pull <id> [--from DIR] [--force] | rm <id> | info <id>',
    positionals: { min: 1, max: 3, name: 'an action (list, pull, rm, info)' },
    options: {
      from: { type: 'string', placeholder: 'DIR', description: "with 'pull': install from a folder copied by hand instead of downloading" },
      force: { type: 'boolean', description: "with 'pull': download again even if installed" },
      ...JSON_OPTION,
    },
    notes: [
      'Models are fetched from the Hugging Face hub ($SKILL_SEARCH_HF_ENDPOINT for a mirror; default https://huggingface.co)',
      'into <cache>/models/<id>/ ($SKILL_SEARCH_CACHE_DIR, $XDG_CACHE_HOME/skill-search or ~/.cache/skill-search).',
      'Downloads resume where they stopped, are checked against the sizes and sha256 the hub announces, and',
      'become visible only once complete. Then pass --model <id> to query, index, watch, hook, mcp or eval.',
    ].join('\n'),
    load: async () => (await import('./commands/model.js')).runModel,
  },
  install: {
    summary: "Add the prompt hook and the MCP server to a host's settings (merged, never replaced; the original is kept beside it).",
    usage: 'claude-code|codex [--user|--project] [--dry-run]',
    positionals: { min: 1, max: 1, name: "a host ('claude-code' or 'codex')" },
    options: INSTALL_OPTIONS,
    notes: [
      'claude-code --user: the hook in ~/.claude/settings.json, the MCP server in ~/.claude.json.',
      'claude-code --project: .claude/settings.json and .mcp.json in --cwd.',
      'codex --user: [mcp_servers.skill-search] in $CODEX_HOME/config.toml (default ~/.codex) and the hook in hooks.json beside it;',
      'codex --project: .codex/config.toml and .codex/hooks.json in --cwd.',
      "codex: the hook's trust entry (the hash Codex checks before it runs a hook) in $CODEX_HOME/config.toml, for both scopes.",
      "Each changed file's original is kept as <file>.skill-search.bak. The command is 'skill-search' when that is on PATH",
      "(npm install -g .), else 'node <absolute path of this bin>'.",
    ].join('\n'),
    load: async () => (await import('./commands/install.js')).runInstall,
  },
  uninstall: {
    summary: 'Take out what install added; a file nobody else changed since is restored byte for byte.',
    usage: 'claude-code|codex [--user|--project] [--dry-run]',
    positionals: { min: 1, max: 1, name: "a host ('claude-code' or 'codex')" },
    options: INSTALL_OPTIONS,
    load: async () => (await import('./commands/install.js')).runUninstall,
  },
  doctor: {
    summary:
      "Check what each host has of ours (the hook, whether its command runs, Codex's trust for it, the MCP server), then what searches use: the skill folders, the model, the store, a running server.",
    usage: '[claude-code|codex|search] [--user|--project] [source and model options]',
    positionals: { min: 0, max: 1, name: "a host ('claude-code' or 'codex') or 'search'" },
    options: {
      ...SOURCE_OPTIONS,
      ...MODEL_OPTIONS,
      user: INSTALL_OPTIONS.user!,
      project: INSTALL_OPTIONS.project!,
      cwd: { ...SOURCE_OPTIONS.cwd!, description: 'the project folder: its skills, and its settings for --project' },
    },
    notes: [
      "'search' checks only what searches use, for the skills the other options name (as 'index' and 'query' read them):",
      'each skill folder with its skills and the files that do not load, the model, the store, the saved index, a watch server.',
      'Exits 1 when an installed host or the search has a problem (WARN does not), and says the step that fixes it.',
    ].join('\n'),
    load: async () => (await import('./commands/doctor.js')).runDoctor,
  },
  'print-config': {
    summary: 'Print the MCP (and hook) configuration for a host, to paste by hand.',
    usage: '[--host generic|claude-code|codex]',
    options: {
      host: { type: 'string', placeholder: 'HOST', description: 'generic (any MCP client), claude-code or codex', defaultText: 'generic' },
      command: INSTALL_OPTIONS.command!,
      ...JSON_OPTION,
    },
    load: async () => (await import('./commands/print-config.js')).runPrintConfig,
  },
  library: {
    summary:
      'Manage the skill library: skills no host lists, found by search only (hook, MCP). add copies, links or moves skills in; remove takes one out (a linked one: the link only).',
    usage: 'add <dir|git-url>... [--link|--move] [--clone-timeout SECONDS] | remove <name>... | list | path',
    positionals: { min: 1, max: Infinity, name: "an action ('add', 'remove', 'list' or 'path')" },
    options: {
      library: SOURCE_OPTIONS.library!,
      link: { type: 'boolean', description: 'link each skill folder instead of copying it (edits to the source show up)' },
      move: { type: 'boolean', description: 'move each skill folder in (takes it out of the folder a host scans)' },
      'clone-timeout': { type: 'string', placeholder: 'SECONDS', description: 'stop a git clone that has not finished by then', defaultText: '120' },
      ...JSON_OPTION,
    },
    load: async () => (await import('./commands/library.js')).runLibrary,
  },
  tokens: {
    summary: "The always-on listing's size per source: everything listed up front, against what the host lists with the library deferred.",
    options: {
      ...SOURCE_OPTIONS,
      host: {
        type: 'string',
        placeholder: 'HOST',
        description: "claude-code or codex: which sources the host lists itself; given, the listing is measured by that host's own rules",
        defaultText: 'claude-code sources, the seed rules',
      },
      ...CONTEXT_WINDOW_OPTION,
      ...JSON_OPTION,
    },
    load: async () => (await import('./commands/tokens.js')).runTokens,
  },
  config: {
    summary: 'Show the merged skill-search config (~/.claude/skill-search.json, then .claude/skill-search.json) and where each value came from.',
    usage: '[--cwd DIR] [--json]',
    options: { cwd: SOURCE_OPTIONS.cwd!, ...JSON_OPTION },
    notes: [
      'Keys: include, exclude (skill patterns: * and ? on the name; with a / on the file path, ** across folders),',
      'pin (always listed), never (never suggested by hook or mcp), library (more library folders),',
      'sources: {claudePlugins, codex, library: true|false, demo: never|auto|always}. Lists add up; the project wins for switches.',
    ].join('\n'),
    load: async () => (await import('./commands/config.js')).runConfig,
  },
  stats: {
    summary: "Which skills this project's sessions used, which suggestions went unused, and which skills were never used (recorded by the hook).",
    options: { ...SOURCE_OPTIONS, ...JSON_OPTION },
    load: async () => (await import('./commands/stats.js')).runStats,
  },
};

/** The command named `name`, if there is one. */
export function commandNamed(name: string | undefined): CommandEntry | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}
