// Public API of the command-line layer: run a command line in-process.
export { main, reportError, EXIT } from './main.js';
export type { CliIo } from './io.js';
