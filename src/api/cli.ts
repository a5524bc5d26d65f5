/** `skill-search/cli`: run a `skill-search` command line in-process (what the bin does). */
export { main, type CliIo } from '../cli/index.js';
