// The defaults and flags more than one command shares; commands.ts puts them together per command.
import type { OptionTable } from './args.js';
import { ENGINE_DEFAULTS } from '../search/options.js';

/** The cut-off `eval` scores at. */
export const DEFAULT_EVAL_K = 10;
/** The encoder when `--model` is not given: the one bundled with the package, not a preset. */
export const DEFAULT_MODEL = 'use-lite';
/** The prompt hook's flag defaults: skills announced per prompt, and the whole budget of one prompt in ms (`--timeout-ms`). */
export const HOOK_DEFAULTS = Object.freeze({ k: 3, timeoutMs: 3000 });

export const SOURCE_OPTIONS: OptionTable = {
  'skills-dir': {
    type: 'string',
    multiple: true,
    placeholder: 'DIR',
    description: 'scan only this folder (DIR/<skill>/SKILL.md or DIR/<name>.md) instead of the default sources',
    defaultText: 'the standard skill folders for --cwd',
  },
  tools: {
    type: 'string',
    multiple: true,
    placeholder: 'FILE.jsonl',
    description: 'treat each line {id,name,description,whenToUse?} of FILE as a skill (like --skills-dir, replaces the default sources)',
  },
  cwd: { type: 'string', placeholder: 'DIR', description: 'working directory whose project skills are scanned', defaultText: 'the current directory' },
  'add-dir': { type: 'string', multiple: true, placeholder: 'DIR', description: "also scan DIR/.claude/skills (like Claude Code's --add-dir)" },
  library: {
    type: 'string',
    multiple: true,
    placeholder: 'DIR',
    description: 'a skill library: skills no host lists, found only by search (see skill-search library)',
    defaultText: '$SKILL_SEARCH_LIBRARY, else ~/.config/skill-search/library when it exists',
  },
  demo: { type: 'boolean', description: "add this package's example skills (otherwise used only when no other skill exists, and never by hook or mcp)" },
  'no-demo': { type: 'boolean', description: 'never add the example skills, even when no other skill exists (as hook and mcp do)' },
};

export const JSON_OPTION: OptionTable = {
  json: { type: 'boolean', description: 'print JSON instead of text' },
};

export const CONTEXT_WINDOW_OPTION: OptionTable = {
  'context-window': {
    type: 'string',
    placeholder: 'TOKENS',
    description: "the model's context window; the listing gets 1% of it (with --host, that host's share)",
    defaultText: 'unknown (8,000 characters; --host: the window the host assumes)',
  },
};

export const QUIET_OPTION: OptionTable = {
  quiet: { type: 'boolean', description: 'no progress while the index is built' },
};

/** `--k` (defaulting to `defaultK`: the engine's default, but for `hook` and `eval`), `--mode`, `--abstain` and the model flags. */
export function retrievalOptions(defaultK: number = ENGINE_DEFAULTS.k): OptionTable {
  return {
    k: { type: 'string', placeholder: 'N', description: 'number of results', defaultText: String(defaultK) },
    mode: { type: 'string', placeholder: 'MODE', description: 'retrieval: hybrid, dense or lexical', defaultText: ENGINE_DEFAULTS.mode },
    abstain: {
      type: 'string',
      placeholder: 'LEVEL',
      description: 'when to show nothing: balanced, strict (fewer off-topic hits, more blanks), off (always the top k) or a relevance from 0 to 1 a hit needs',
      defaultText: String(ENGINE_DEFAULTS.abstain),
    },
    ...MODEL_OPTIONS,
  };
}

export const MODEL_OPTIONS: OptionTable = {
  model: {
    type: 'string',
    placeholder: 'NAME',
    description:
      'embedding model: use-lite (bundled), a preset fetched with \'skill-search model pull <id>\', or a model folder ("hash" is a fast fake for tests)',
    defaultText: DEFAULT_MODEL,
  },
  'index-dir': {
    type: 'string',
    placeholder: 'DIR',
    description: "folder of the index's watch socket and builder lease (the index itself is in the store)",
    defaultText: 'one folder per catalog and model under $SKILL_SEARCH_CACHE_DIR, $XDG_CACHE_HOME/skill-search or ~/.cache/skill-search',
  },
};

export const INSTALL_OPTIONS: OptionTable = {
  user: { type: 'boolean', description: 'the user-wide settings (the default)' },
  project: { type: 'boolean', description: 'the settings of the project in --cwd' },
  'dry-run': { type: 'boolean', description: 'print what would change, as a diff, and change nothing' },
  cwd: { type: 'string', placeholder: 'DIR', description: 'the project folder for --project', defaultText: 'the current directory' },
  command: {
    type: 'string',
    placeholder: 'CMD',
    description: 'the command the host runs',
    defaultText: "'skill-search' when it is on PATH, else 'node <this bin's absolute path>'",
  },
  json: { type: 'boolean', description: 'print what changed (or would) as JSON' },
};
