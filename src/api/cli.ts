/** `skill-search/cli`: run a `skill-search` command line in-process (what the bin does). */
export { main } from '../cli/main.js';
export type { CliIo } from '../cli/io.js';
