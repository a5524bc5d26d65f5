import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SkillSearchError } from '../errors.js';
import { didYouMean, renderCommandHelp } from './args.js';
import { COMMANDS, commandNamed } from './commands.js';
import type { CliIo } from './io.js';
import { EXIT, runCommand, runMain } from './run.js';
import { packageVersion } from '../util/package-version.js';

function topHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    'Usage: skill-search <command> [options]',
    '',
    'Semantic search over agent skills (SKILL.md files and tool lists).',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    'Options:',
    '  -h, --help     show help (also: skill-search <command> --help)',
    '  -v, --version  print the version',
    '',
    'With no --skills-dir, skills are read from the standard folders for --cwd: ~/.claude/skills,',
    'every .claude/skills from --cwd up to the home folder, legacy .claude/commands, enabled Claude Code',
    "plugins, Codex's skill folders and the skill library (this package's example skills only when none exist).",
    '',
  ].join('\n');
}

/** Runs one command line to its exit code; never rejects nor calls `process.exit`, so it runs in-process too. */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  return runMain(argv, io, dispatch);
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(topHelp());
    return EXIT.user;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? commandNamed(rest[0]) : undefined;
    io.stdout.write(topic === undefined ? topHelp() : renderCommandHelp(rest[0]!, topic));
    return EXIT.ok;
  }
  if (first === '--version' || first === '-v') {
    io.stdout.write(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (first.startsWith('-')) {
    throw new SkillSearchError('BAD_FLAG', `unknown option '${first}'${didYouMean(first, ['--help', '--version'])} (see skill-search --help)`);
  }
  const command = commandNamed(first);
  if (command === undefined) {
    throw new SkillSearchError('BAD_FLAG', `unknown command '${first}'${didYouMean(first, Object.keys(COMMANDS))} (see skill-search --help)`);
  }
  return runCommand(first, command, rest, io);
}

function isEntryModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryModule()) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
