import { createHash } from 'node:crypto';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import type { Embedder, Skill } from '../../src/types.js';

export interface SkillSpec {
  readonly name: string;
  readonly description: string;
  readonly whenToUse?: string;
  readonly id?: string;
}

/** Builds a Skill the way the loader does (contentHash = sha256 of name\ndescription\nwhenToUse). */
export function makeSkill(spec: SkillSpec): Skill {
  const text = `${spec.name}\n${spec.description}\n${spec.whenToUse ?? ''}`;
  return {
    name: spec.name,
    description: spec.description,
    ...(spec.whenToUse === undefined ? {} : { whenToUse: spec.whenToUse }),
    source: 'skills',
    rank: 4,
    path: `/skills/${spec.name}/SKILL.md`,
    id: spec.id ?? spec.name,
    body: `# ${spec.name}\n`,
    tokenEstimate: Math.ceil(text.length / 4),
    contentHash: createHash('sha256').update(text).digest('hex'),
  };
}

/** Twenty-two skills written for these tests: distinct domains, a few near-neighbours, two in Chinese. */
export const CATALOG: readonly SkillSpec[] = [
  {
    name: 'pdf',
    description: 'Read, split, merge and fill PDF documents; pull text and tables out of PDF pages.',
    whenToUse: 'when the user hands over a .pdf file or asks to create one',
  },
  {
    name: 'docx',
    description: 'Create and edit Word documents with headings, tracked changes and comments.',
    whenToUse: 'when a .docx report or letter must be written or revised',
  },
  {
    name: 'xlsx',
    description: 'Build spreadsheets with formulas, charts and pivot tables; read Excel workbooks.',
    whenToUse: 'when working with Excel files or tabular numbers that need formulas',
  },
  {
    name: 'systematic-debugging',
    description: 'A step-by-step method to find the root cause of a bug before changing code.',
    whenToUse: 'when a test fails, a crash appears or behaviour is unexpected',
  },
  {
    name: 'test-driven-development',
    description: 'Write the failing test first, then the smallest code that passes, then refactor.',
    whenToUse: 'when implementing a feature or fixing a bug with tests',
  },
  {
    name: 'git-worktrees',
    description: 'Work on several branches at once with isolated git worktree folders.',
    whenToUse: 'when starting feature work that should not disturb the current checkout',
  },
  {
    name: 'code-review',
    description: 'Review a pull request for correctness, security and readability and leave actionable comments.',
    whenToUse: 'when asked to review a diff or a PR',
  },
  {
    name: 'frontend-design',
    description: 'Design distinctive web interfaces: layout, typography, colour and responsive CSS.',
    whenToUse: 'when building a landing page, dashboard or UI component',
  },
  {
    name: 'mcp-builder',
    description: 'Build Model Context Protocol servers that expose tools to language models.',
    whenToUse: 'when creating an MCP server in TypeScript or Python',
  },
  {
    name: 'skill-creator',
    description: 'Author a new agent skill: frontmatter, instructions and bundled scripts.',
    whenToUse: 'when the user wants to write or improve a SKILL.md',
  },
  {
    name: 'sql-optimization',
    description: 'Speed up slow SQL queries with indexes, query plans and rewritten joins.',
    whenToUse: 'when a database query is slow or EXPLAIN shows a full table scan',
  },
  {
    name: 'docker-compose',
    description: 'Containerise services and wire them together with Docker Compose files.',
    whenToUse: 'when an app needs containers, images or a local multi-service setup',
  },
  {
    name: 'kubernetes-deploy',
    description: 'Deploy workloads to a Kubernetes cluster with manifests, Helm charts and rollouts.',
    whenToUse: 'when shipping a service to k8s',
  },
  {
    name: 'security-audit',
    description: 'Audit source code for vulnerabilities such as injection, secrets in code and unsafe deserialisation.',
    whenToUse: 'when checking an application for security holes',
  },
  {
    name: 'data-visualization',
    description: 'Plot data with matplotlib and seaborn: line charts, histograms, heatmaps.',
    whenToUse: 'when numbers should become a figure or graph',
  },
  {
    name: 'web-scraping',
    description: 'Fetch web pages and extract structured data with selectors, respecting robots.txt.',
    whenToUse: 'when information must be collected from websites',
  },
  {
    name: 'api-design',
    description: 'Design REST and GraphQL APIs: resources, pagination, versioning and error formats.',
    whenToUse: 'when defining endpoints for a new service',
  },
  {
    name: 'release-notes',
    description: 'Write a changelog and release notes from merged commits and pull requests.',
    whenToUse: 'when preparing a version release',
  },
  {
    name: 'image-editing',
    description: 'Resize, crop, convert and compress images in PNG, JPEG and WebP formats.',
    whenToUse: 'when a picture or photo has to be transformed',
  },
  {
    name: 'translation',
    description: 'Translate documents between languages while keeping formatting and terminology consistent.',
    whenToUse: 'when text must be rendered in another language such as Chinese or Japanese',
  },
  { name: 'meeting-minutes', description: '整理会议记录，生成会议纪要和待办事项清单。', whenToUse: '当用户需要总结一次会议的内容时' },
  { name: 'log-analysis', description: '分析服务器日志，定位错误原因和性能瓶颈。', whenToUse: '当线上服务报错或者变慢时' },
];

export const SKILLS: readonly Skill[] = CATALOG.map(makeSkill);

/** Three tool lines (no body, a short description each) and three SKILL.md skills: catalogues of either kind for `catalogKind`. */
const toolLine = (name: string, description: string): Skill => ({ ...makeSkill({ name, description }), body: '' });
const skillFile = (name: string, description: string): Skill => ({ ...makeSkill({ name, description }), body: `# ${name}\n\nSteps to follow.\n` });
export const KIND_TOOLS: readonly Skill[] = [
  toolLine('getWeather', 'Get the current weather for a city'),
  toolLine('create_issue', 'Create a new issue in a repository'),
  toolLine('searchFlights', 'Search flights between two airports on a date'),
];
export const KIND_SKILLS: readonly Skill[] = [
  skillFile('pdf', 'Fill PDF forms'),
  skillFile('docx', 'Edit Word documents'),
  skillFile('release-notes', 'Draft release notes'),
];

/** Wraps an embedder and records every text it is asked to embed. */
export function counting(embedder: Embedder = createHashEmbedder()): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    id: embedder.id,
    dimensions: embedder.dimensions,
    texts,
    embed(batch, signal) {
      texts.push(...batch);
      return embedder.embed(batch, signal);
    },
  };
}
