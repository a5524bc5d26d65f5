#!/usr/bin/env node
// CommonJS (bin/package.json): a cold start loads the CLI as one file, dist/cli/bundle.cjs
// (scripts/bundle-cli.ts), sooner than tsc's ES modules one by one. A bundle older than those
// modules (a build that ran tsc alone) is passed over for them.
const { statSync } = require('node:fs');
const path = require('node:path');

const BUNDLE = path.join(__dirname, '..', 'dist', 'cli', 'bundle.cjs');
const MODULES = path.join(__dirname, '..', 'dist', 'cli', 'main.js');

function bundleIsCurrent() {
  try {
    return statSync(BUNDLE).mtimeMs >= statSync(MODULES).mtimeMs;
  } catch {
    return false;
  }
}

const loading = bundleIsCurrent() ? new Promise((resolve) => resolve(require(BUNDLE))) : import('../dist/cli/main.js');

loading
  .then(({ main }) => main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`skill-search: internal error: ${error?.stack ?? error}\n`);
      process.exitCode = 2;
    },
  );
