/**
 * `npx tsx bench/render.ts [results.json]`: redraws chart.svg and results.md beside a saved
 * results.json without re-running anything (e.g. after changing the chart).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './options.js';
import { writeReport } from './report.js';
import type { RunReport } from './results.js';

const file = path.resolve(process.argv[2] ?? path.join(REPO_ROOT, 'bench', 'results.json'));
const report = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
const files = writeReport(report, path.dirname(file));
process.stdout.write(`wrote ${files.svg} and ${files.markdown}\n`);
