/** The skills every host test starts from, and the prompts that match one of them or none. */
import type { SkillFile } from './host-home.js';

export const SKILLS: readonly SkillFile[] = [
  { name: 'pdf-tables', description: 'Extract text and tables from PDF files into CSV' },
  { name: 'csv-clean', description: 'Clean, dedupe and normalise CSV spreadsheets' },
  { name: 'release-notes', description: 'Write release notes from the git log between two tags' },
];

/** Matches pdf-tables (and only it). */
export const MATCHING = 'extract the tables from this PDF file';
export const MATCHING_SUGGESTION = '- pdf-tables: Extract text and tables from PDF files into CSV';
/** Matches csv-clean: a second topic for the same session. */
export const CSV_PROMPT = 'clean and dedupe this CSV spreadsheet';
export const CSV_SUGGESTION = '- csv-clean: Clean, dedupe and normalise CSV spreadsheets';
export const OFF_TOPIC = 'what is the capital of Peru';

/** A side-effecting workflow its author keeps from the model, and a prompt it would match. */
export const DEPLOY: SkillFile = {
  name: 'deploy-staging',
  description: 'Deploy the web app to the staging servers',
  frontmatter: ['disable-model-invocation: true'],
};
export const DEPLOY_PROMPT = 'deploy the web app to the staging servers';
