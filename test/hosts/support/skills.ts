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
/** Names csv-clean, and asks for what pdf-tables does too: only the named skill is suggested. */
export const NAMED_PROMPT = `use the csv-clean skill, then ${MATCHING}`;

/** A side-effecting workflow its author keeps from the model, and a prompt it would match. */
export const DEPLOY: SkillFile = {
  name: 'deploy-staging',
  description: 'Deploy the web app to the staging servers',
  frontmatter: ['disable-model-invocation: true'],
};
export const DEPLOY_PROMPT = 'deploy the web app to the staging servers';

/** SKILL.md files a host loads with their first paragraph as description: no frontmatter, and frontmatter without a description. */
export const UNDESCRIBED: readonly SkillFile[] = [
  {
    // A leading `# heading` would be the first paragraph (Claude Code lists `- name: heading text`).
    name: 'scan-reader',
    description: 'Read scanned invoices and pull out the totals, dates and vendor names.',
    raw: 'Read scanned invoices and pull out the totals, dates and vendor names.\n\n## Steps\n\nRun the OCR script.\n',
  },
  {
    name: 'shipping-labels',
    description: 'Print shipping labels for parcels from an order export.',
    raw: '---\nname: shipping-labels\n---\n\nPrint shipping labels for parcels from an order export.\n\nUse the label printer profile.\n',
  },
];
/** A skill whose frontmatter names it other than its folder (`docs-translate`): Claude Code lists and invokes it by the folder's name. */
export const RENAMED: SkillFile = {
  name: 'docs-translate',
  description: 'Translate Markdown documentation into German and Japanese',
  raw: '---\nname: acme-docs-translator\ndescription: Translate Markdown documentation into German and Japanese\n---\n# Translate docs\n\nKeep code blocks as they are.\n',
};
export const RENAMED_PROMPT = 'translate our markdown documentation into german';
export const INVOICE_PROMPT = 'pull out the totals from these scanned invoices';
export const LABELS_PROMPT = 'print shipping labels for the parcels in this order export';
