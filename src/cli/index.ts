// The command-line layer's public face: run a command line in-process.
export { main } from './main.js';
export type { CliIo } from './io.js';
