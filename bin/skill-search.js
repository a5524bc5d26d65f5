#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`skill-search: internal error: ${error?.stack ?? error}\n`);
    process.exitCode = 2;
  },
);
