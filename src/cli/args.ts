import { parseArgs } from 'node:util';
import { SkillSearchError } from '../errors.js';
import { suggestNames } from '../util/suggest.js';
import type { CliIo } from './io.js';

/** One flag of a command, as parsed and as shown in `--help`. */
interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  /** Shown in help (`DIR`, `N`). */
  readonly placeholder?: string;
  readonly description: string;
  /** The default as help shows it. */
  readonly defaultText?: string;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** A command in the table (commands.ts), its name its key there: its flags and help, and its code, imported when it runs (resolving to its exit code). */
export interface CommandEntry {
  readonly summary: string;
  /** The usage line after `skill-search <name>`. @default '[options]' */
  readonly usage?: string;
  readonly options: OptionTable;
  /** How many non-flag arguments it takes, and what an error calls them. @default none */
  readonly positionals?: { readonly min: number; readonly max: number; readonly name: string };
  /** Extra help paragraphs (output format, examples). */
  readonly notes?: string;
  readonly load: () => Promise<(args: ParsedArgs, io: CliIo) => Promise<number>>;
}

export type ParsedValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedArgs {
  readonly values: ParsedValues;
  readonly positionals: readonly string[];
  readonly help: boolean;
}

/** `skill-search: <text>` as a user error (exit 1). */
export function flagError(message: string): SkillSearchError {
  return new SkillSearchError('BAD_FLAG', message);
}

function seeHelp(command: string): string {
  return `(see skill-search ${command} --help)`;
}

/** ` (did you mean 'a' or 'b'?)`, or '' when nothing is close. */
export function didYouMean(typed: string, known: readonly string[]): string {
  const close = suggestNames(typed, known);
  if (close.length === 0) return '';
  const quoted = close.map((name) => `'${name}'`);
  return ` (did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`}?)`;
}

/** `-v breaks the build`, one argument with a space in what would be an option's name: a message, as no option has one. */
function isDashedMessage(arg: string): boolean {
  return arg.startsWith('-') && /\s/.test(arg.split('=', 1)[0]!);
}

/** node:util's parser in non-strict token mode, strictness applied here so that every error names the flag typed. */
export function parseCommandArgs(name: string, spec: CommandEntry, argv: readonly string[]): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [flag, { type, multiple }] of Object.entries(spec.options)) options[flag] = multiple ? { type, multiple } : { type };
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });

  const values: ParsedValues = {};
  const positionals: string[] = [];
  let help = false;
  const dashedMessages = new Set<number>();
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') continue;
    // The parser reads it as a group of short options, one token each: the argument is kept once, as a positional.
    if (isDashedMessage(argv[token.index]!)) {
      if (!dashedMessages.has(token.index)) positionals.push(argv[token.index]!);
      dashedMessages.add(token.index);
      continue;
    }
    const option = options[token.name];
    if (!option) {
      const known = Object.keys(spec.options).map((flag) => `--${flag}`);
      const hint = token.rawName.startsWith('--') ? didYouMean(token.rawName, known) : '';
      throw flagError(`unknown option '${token.rawName}' for '${name}'${hint} ${seeHelp(name)}`);
    }
    if (token.name === 'help') {
      help = true;
      continue;
    }
    if (option.type === 'boolean') {
      if (token.value !== undefined) throw flagError(`option '${token.rawName}' takes no value, got '${token.value}' ${seeHelp(name)}`);
      values[token.name] = true;
      continue;
    }
    if (token.value === undefined) throw flagError(`option '${token.rawName}' needs a value ${seeHelp(name)}`);
    values[token.name] = option.multiple ? [...((values[token.name] as string[] | undefined) ?? []), token.value] : token.value;
  }
  if (help) return { values, positionals, help };
  const expected = spec.positionals ?? { min: 0, max: 0, name: '' };
  if (positionals.length < expected.min) throw flagError(`'${name}' needs ${expected.name} ${seeHelp(name)}`);
  if (positionals.length > expected.max) {
    const extra = positionals[expected.max]!;
    throw flagError(`unexpected argument '${extra}' for '${name}'${sourceHint(spec, extra)} ${seeHelp(name)}`);
  }
  return { values, positionals, help };
}

/** For a command that reads skills from flags only: how a path given bare is passed (`validate ./skills`, `list tools.jsonl`). */
function sourceHint(spec: CommandEntry, extra: string): string {
  const flag = extra.toLowerCase().endsWith('.jsonl') ? 'tools' : 'skills-dir';
  return flag in spec.options ? ` (to read skills from it: --${flag} '${extra}')` : '';
}

export function parsePositiveInt(flag: string, raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < 1) throw flagError(`--${flag} expects a positive integer, got '${raw}'`);
  return value;
}

export function parseChoice<T extends string>(flag: string, raw: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(raw)) throw flagError(`--${flag} expects one of ${choices.join(', ')}, got '${raw}'`);
  return raw as T;
}

/** A command's first argument, one of a few words: `unknown command 'frob' for 'library' (did you mean …?); expected add, list, path or remove`. */
export function parsePositionalChoice<T extends string>(command: string, what: string, raw: string | undefined, choices: readonly T[]): T {
  if (raw !== undefined && (choices as readonly string[]).includes(raw)) return raw as T;
  const expected = `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  if (raw === undefined || raw === '') throw flagError(`'${command}' needs ${what}: ${expected} ${seeHelp(command)}`);
  throw flagError(`unknown ${what} '${raw}' for '${command}'${didYouMean(raw, choices)}; expected ${expected} ${seeHelp(command)}`);
}

export function renderCommandHelp(name: string, spec: CommandEntry): string {
  const rows: [string, string][] = [['-h, --help', 'show this help']];
  for (const [key, option] of Object.entries(spec.options)) {
    const flag = `--${key}${option.placeholder ? ` ${option.placeholder}` : ''}`;
    const extras = [option.multiple ? 'repeatable' : '', option.defaultText ? `default: ${option.defaultText}` : ''].filter(Boolean).join('; ');
    rows.push([flag, extras ? `${option.description} (${extras})` : option.description]);
  }
  const width = Math.max(...rows.map(([flag]) => flag.length));
  const lines = [
    `Usage: skill-search ${name} ${spec.usage ?? '[options]'}`.trimEnd(),
    '',
    spec.summary,
    '',
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
  ];
  if (spec.notes) lines.push('', spec.notes);
  return `${lines.join('\n')}\n`;
}
