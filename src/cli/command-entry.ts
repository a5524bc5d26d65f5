import type { CommandSpec, ParsedArgs } from './args.js';
import type { CliIo } from './io.js';

/** What a command does with its parsed arguments: its exit code. */
export type CommandRunner = (args: ParsedArgs, io: CliIo) => Promise<number>;

/** A command in the table (commands.ts): its flags and help, and its code, imported when it runs. */
export interface CommandEntry {
  readonly spec: CommandSpec;
  readonly load: () => Promise<CommandRunner>;
}
