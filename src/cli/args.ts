import { parseArgs } from 'node:util';
import { SkillSearchError } from '../errors.js';
import { suggestNames } from '../util/suggest.js';

/** One flag of a command, as parsed and as shown in `--help`. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  /** Placeholder shown in help (`DIR`, `N`). */
  readonly placeholder?: string;
  readonly description: string;
  /** The default as the user should read it in help. */
  readonly defaultText?: string;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  /**
   * The part of the usage line after `skill-search <name>`.
   * @default '[options]'
   */
  readonly usage?: string;
  readonly options: OptionTable;
  /**
   * How many arguments that are not flags the command takes, and what to call them in an error.
   * @default none
   */
  readonly positionals?: { readonly min: number; readonly max: number; readonly name: string };
  /** Extra help paragraphs (examples, output format). */
  readonly notes?: string;
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

const NO_POSITIONALS = { min: 0, max: 0, name: '' } as const;

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

/**
 * Parses with node:util in non-strict token mode and applies strictness ourselves, so every
 * error can name the flag the user typed (node's own messages are multi-clause and generic).
 */
export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, { type, multiple }] of Object.entries(spec.options)) options[name] = multiple ? { type, multiple } : { type };
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });

  const values: ParsedValues = {};
  const positionals: string[] = [];
  let help = false;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') continue;
    const option = options[token.name];
    if (!option) {
      const known = Object.keys(spec.options).map((name) => `--${name}`);
      const hint = token.rawName.startsWith('--') ? didYouMean(token.rawName, known) : '';
      throw flagError(`unknown option '${token.rawName}' for '${spec.name}'${hint} ${seeHelp(spec.name)}`);
    }
    if (token.name === 'help') {
      help = true;
      continue;
    }
    if (option.type === 'boolean') {
      if (token.value !== undefined) {
        throw flagError(`option '${token.rawName}' takes no value, got '${token.value}' ${seeHelp(spec.name)}`);
      }
      values[token.name] = true;
      continue;
    }
    if (token.value === undefined) throw flagError(`option '${token.rawName}' needs a value ${seeHelp(spec.name)}`);
    if (option.multiple) {
      const list = (values[token.name] as string[] | undefined) ?? [];
      list.push(token.value);
      values[token.name] = list;
    } else {
      values[token.name] = token.value;
    }
  }
  if (help) return { values, positionals, help };
  const expected = spec.positionals ?? NO_POSITIONALS;
  if (positionals.length < expected.min) {
    throw flagError(`'${spec.name}' needs ${expected.name} ${seeHelp(spec.name)}`);
  }
  if (positionals.length > expected.max) {
    const extra = positionals[expected.max];
    throw flagError(`unexpected argument '${extra}' for '${spec.name}' ${seeHelp(spec.name)}`);
  }
  return { values, positionals, help };
}

export function parsePositiveInt(flag: string, raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw flagError(`--${flag} expects a positive integer, got '${raw}'`);
  }
  return value;
}

export function parseChoice<T extends string>(flag: string, raw: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(raw)) {
    throw flagError(`--${flag} expects one of ${choices.join(', ')}, got '${raw}'`);
  }
  return raw as T;
}

/**
 * A command's first argument that must be one of a few words (`library add`, `install codex`):
 * `unknown action 'frob' for 'library' (did you mean …?) (expected add, list or path)`.
 * `what` names the argument as the command's help does.
 */
export function parsePositionalChoice<T extends string>(command: string, what: string, raw: string | undefined, choices: readonly T[]): T {
  if (raw !== undefined && (choices as readonly string[]).includes(raw)) return raw as T;
  const expected = `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  if (raw === undefined || raw === '') throw flagError(`'${command}' needs ${what}: ${expected} ${seeHelp(command)}`);
  throw flagError(`unknown ${what} '${raw}' for '${command}'${didYouMean(raw, choices)}; expected ${expected} ${seeHelp(command)}`);
}

export function renderCommandHelp(spec: CommandSpec): string {
  const rows: [string, string][] = [['-h, --help', 'show this help']];
  for (const [name, option] of Object.entries(spec.options)) {
    const flag = `--${name}${option.placeholder ? ` ${option.placeholder}` : ''}`;
    const extras = [option.multiple ? 'repeatable' : '', option.defaultText ? `default: ${option.defaultText}` : ''].filter(Boolean).join('; ');
    rows.push([flag, extras ? `${option.description} (${extras})` : option.description]);
  }
  const width = Math.max(...rows.map(([flag]) => flag.length));
  const lines = [
    `Usage: skill-search ${spec.name} ${spec.usage ?? '[options]'}`.trimEnd(),
    '',
    spec.summary,
    '',
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
  ];
  if (spec.notes) lines.push('', spec.notes);
  return `${lines.join('\n')}\n`;
}
