/**
 * A deterministic generator of realistic-looking skills and labelled queries, so the
 * benchmarks run on a fresh machine without `../shared/eval`.
 *
 * A skill is one (tool, object, verb, qualifier) combination of a domain's vocabulary.
 * Queries paraphrase a skill through synonyms and aliases, so lexical overlap is partial
 * and a dense model has something to do. Catalogs of every size are prefixes of one fixed
 * permutation: the 1k catalog is inside the 10k one, and a seed gives the same bytes on
 * every machine.
 */
import type { LabelledQuery, ToolRecord } from './records.js';
import { prng } from '../scripts/prng.js';

interface Term {
  readonly word: string;
  readonly synonyms: readonly string[];
}
interface Verb extends Term {
  /** Third person singular, for descriptions ("Extracts …"). */
  readonly third: string;
}
interface Domain {
  readonly name: string;
  readonly tools: readonly Term[];
  readonly objects: readonly Term[];
}

const t = (word: string, ...synonyms: string[]): Term => ({ word, synonyms });

const VERBS: readonly Verb[] = [
  { word: 'extract', third: 'Extracts', synonyms: ['pull out', 'grab', 'get out'] },
  { word: 'convert', third: 'Converts', synonyms: ['turn into another format', 'transform', 'export'] },
  { word: 'debug', third: 'Debugs', synonyms: ['troubleshoot', 'figure out what is wrong with', 'diagnose'] },
  { word: 'generate', third: 'Generates', synonyms: ['create', 'write new', 'scaffold'] },
  { word: 'review', third: 'Reviews', synonyms: ['look over', 'check the quality of', 'audit'] },
  { word: 'optimize', third: 'Optimizes', synonyms: ['speed up', 'make faster', 'tune'] },
  { word: 'migrate', third: 'Migrates', synonyms: ['move', 'port', 'upgrade'] },
  { word: 'validate', third: 'Validates', synonyms: ['verify', 'sanity-check', 'lint'] },
  { word: 'summarize', third: 'Summarizes', synonyms: ['recap', 'give me an overview of', 'condense'] },
  { word: 'deploy', third: 'Deploys', synonyms: ['ship', 'roll out', 'release'] },
  { word: 'monitor', third: 'Monitors', synonyms: ['keep an eye on', 'watch', 'track'] },
  { word: 'clean up', third: 'Cleans up', synonyms: ['tidy', 'prune', 'get rid of stale'] },
];

interface Qualifier extends Term {
  /** Name suffix. */
  readonly tag: string;
}

const QUALIFIERS: readonly Qualifier[] = [
  { tag: 'at-scale', ...t('for large repositories', 'in a huge monorepo', 'at scale') },
  { tag: 'in-ci', ...t('in CI', 'in the build pipeline', 'on every push') },
  { tag: 'guided', ...t('step by step for beginners', "explained simply, I'm new to this", 'with a walkthrough') },
  { tag: 'dry-run', ...t('with a dry run first', 'without changing anything yet', 'as a preview') },
  { tag: 'bulk', ...t('across many files', 'in bulk', 'for the whole project') },
];

const DOMAINS: readonly Domain[] = [
  {
    name: 'documents',
    tools: [t('PDF', 'pdf'), t('Word', 'docx'), t('Excel', 'spreadsheet', 'xlsx'), t('PowerPoint', 'slides', 'pptx'), t('Markdown', 'md'), t('LaTeX', 'tex')],
    objects: [
      t('tables', 'tabular data'),
      t('images', 'pictures', 'figures'),
      t('footnotes', 'endnotes'),
      t('metadata', 'document properties'),
      t('pages', 'sheets'),
      t('forms', 'fillable fields'),
      t('comments', 'annotations'),
      t('charts', 'graphs', 'plots'),
    ],
  },
  {
    name: 'devops',
    tools: [
      t('Docker', 'docker'),
      t('Kubernetes', 'k8s'),
      t('Terraform', 'tf', 'IaC'),
      t('Helm', 'helm charts'),
      t('Ansible', 'playbooks'),
      t('GitHub Actions', 'gh actions', 'workflows'),
    ],
    objects: [
      t('containers', 'running services'),
      t('pods', 'workloads'),
      t('manifests', 'yaml configs'),
      t('secrets', 'credentials'),
      t('pipelines', 'jobs'),
      t('volumes', 'persistent storage'),
      t('clusters', 'nodes'),
      t('logs', 'log output'),
    ],
  },
  {
    name: 'data',
    tools: [
      t('Postgres', 'postgresql', 'pg'),
      t('MySQL', 'mariadb'),
      t('SQLite', 'sqlite3'),
      t('BigQuery', 'bq'),
      t('pandas', 'dataframes'),
      t('Spark', 'pyspark'),
    ],
    objects: [
      t('schemas', 'table definitions'),
      t('queries', 'SQL'),
      t('indexes', 'lookups'),
      t('migrations', 'schema changes'),
      t('rows', 'records'),
      t('backups', 'snapshots'),
      t('CSV exports', 'csv dumps'),
      t('joins', 'relations'),
    ],
  },
  {
    name: 'frontend',
    tools: [
      t('React', 'react', 'jsx'),
      t('Vue', 'vue.js'),
      t('Svelte', 'sveltekit'),
      t('Tailwind', 'tailwind css'),
      t('Next.js', 'nextjs'),
      t('Storybook', 'component stories'),
    ],
    objects: [
      t('components', 'widgets'),
      t('hooks', 'state logic'),
      t('styles', 'css'),
      t('routes', 'pages'),
      t('forms', 'inputs'),
      t('bundles', 'build output'),
      t('accessibility issues', 'a11y problems'),
      t('layouts', 'page structure'),
    ],
  },
  {
    name: 'testing',
    tools: [
      t('Vitest', 'vitest'),
      t('Jest', 'jest'),
      t('Playwright', 'browser automation'),
      t('Cypress', 'cypress'),
      t('pytest', 'python tests'),
      t('JUnit', 'java tests'),
    ],
    objects: [
      t('unit tests', 'specs'),
      t('snapshots', 'golden files'),
      t('fixtures', 'test data'),
      t('flaky tests', 'intermittent failures'),
      t('coverage reports', 'coverage'),
      t('mocks', 'stubs', 'fakes'),
      t('end-to-end tests', 'e2e tests'),
      t('test plans', 'test cases'),
    ],
  },
  {
    name: 'version control',
    tools: [t('Git', 'git'), t('GitHub', 'gh'), t('GitLab', 'gitlab'), t('Gerrit', 'code review server')],
    objects: [
      t('commits', 'commit history'),
      t('branches', 'feature branches'),
      t('pull requests', 'PRs'),
      t('merge conflicts', 'conflicts'),
      t('tags', 'version tags'),
      t('changelogs', 'change history'),
      t('release notes', 'what changed'),
      t('hooks', 'pre-commit checks'),
    ],
  },
  {
    name: 'cloud',
    tools: [t('AWS', 'amazon web services'), t('GCP', 'google cloud'), t('Azure', 'microsoft cloud'), t('Cloudflare', 'cloudflare')],
    objects: [
      t('buckets', 'object storage'),
      t('serverless functions', 'lambdas'),
      t('IAM policies', 'permissions'),
      t('DNS records', 'domains'),
      t('load balancers', 'traffic routing'),
      t('budgets', 'cloud spend', 'costs'),
      t('queues', 'message queues'),
      t('certificates', 'TLS certs'),
    ],
  },
  {
    name: 'machine learning',
    tools: [t('PyTorch', 'torch'), t('TensorFlow', 'tf.keras'), t('scikit-learn', 'sklearn'), t('Hugging Face', 'transformers', 'hf')],
    objects: [
      t('models', 'networks'),
      t('datasets', 'training data'),
      t('checkpoints', 'saved weights'),
      t('training runs', 'experiments'),
      t('embeddings', 'vectors'),
      t('hyperparameters', 'learning rate settings'),
      t('evaluation metrics', 'accuracy numbers'),
      t('tokenizers', 'vocabularies'),
    ],
  },
  {
    name: 'security',
    tools: [t('Semgrep', 'static analysis'), t('CodeQL', 'codeql'), t('OWASP ZAP', 'zap scanner'), t('Trivy', 'image scanner')],
    objects: [
      t('vulnerabilities', 'security holes'),
      t('dependencies', 'third-party packages'),
      t('leaked secrets', 'exposed keys'),
      t('audit logs', 'access logs'),
      t('SBOMs', 'bills of materials'),
      t('CVEs', 'advisories'),
      t('permissions', 'access rights'),
      t('findings', 'alerts'),
    ],
  },
  {
    name: 'team communication',
    tools: [t('Slack', 'slack'), t('Notion', 'notion'), t('Jira', 'tickets board'), t('Confluence', 'wiki'), t('Gmail', 'email')],
    objects: [
      t('messages', 'chats'),
      t('tickets', 'issues'),
      t('meeting notes', 'minutes'),
      t('docs pages', 'wiki pages'),
      t('weekly summaries', 'digests'),
      t('roadmaps', 'plans'),
      t('status updates', 'standups'),
      t('threads', 'conversations'),
    ],
  },
];

const NO_SKILL_QUERIES: readonly string[] = [
  'what is the capital of australia',
  'tell me a joke about penguins',
  'how are you doing today',
  'thanks, that is all for now',
  'who won the football world cup in 1998',
  'write a haiku about autumn leaves',
  'what does the word serendipity mean',
  'recommend a good fantasy novel',
  'how many minutes are in a week',
  'explain why the sky is blue',
  'good morning!',
  'what should I cook for dinner tonight',
];

export { prng };

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

interface Combo {
  readonly domain: Domain;
  readonly tool: Term;
  readonly object: Term;
  readonly verb: Verb;
  readonly qualifier: Qualifier;
}

function allCombos(): Combo[] {
  const combos: Combo[] = [];
  for (const domain of DOMAINS)
    for (const tool of domain.tools)
      for (const object of domain.objects) for (const verb of VERBS) for (const qualifier of QUALIFIERS) combos.push({ domain, tool, object, verb, qualifier });
  return combos;
}

/** How many distinct skills the vocabulary can make; larger requests repeat combos with a numeric suffix. */
export const SYNTHETIC_CAPACITY = allCombos().length;

function shuffled<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

export interface SyntheticCorpus {
  readonly tools: readonly ToolRecord[];
  readonly queries: readonly LabelledQuery[];
}

export interface SyntheticOptions {
  readonly skills: number;
  readonly queries: number;
  /** @default 7 */
  readonly seed?: number;
  /** Share of queries with `relevant: []`. @default 0.1 */
  readonly noSkillShare?: number;
}

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

/** Canonical word or one of its synonyms; `literal` biases towards the word itself. */
const say = (term: Term, random: () => number, literal: boolean): string => (literal || term.synonyms.length === 0 ? term.word : pick(term.synonyms, random));

export function generateSynthetic(options: SyntheticOptions): SyntheticCorpus {
  const seed = options.seed ?? 7;
  const noSkillShare = options.noSkillShare ?? 0.1;
  const order = shuffled(allCombos(), prng(seed));
  const tools: ToolRecord[] = [];
  const combos: Combo[] = [];
  for (let i = 0; i < options.skills; i++) {
    const combo = order[i % order.length]!;
    const round = Math.floor(i / order.length);
    const { tool, object, verb, qualifier, domain } = combo;
    const base = `${slug(tool.word)}-${slug(verb.word)}-${slug(object.word)}-${qualifier.tag}`;
    const name = round === 0 ? base : `${base}-${round + 1}`;
    tools.push({
      id: name,
      name,
      description: `${verb.third} ${object.word} in ${tool.word} projects ${qualifier.word}. Part of the ${domain.name} toolkit.`,
      whenToUse: `when the user wants to ${verb.word} ${tool.word} ${object.word} ${qualifier.word}`,
    });
    combos.push(combo);
  }

  const random = prng(seed * 31 + 1);
  const templates: readonly ((v: string, o: string, tl: string, q: string) => string)[] = [
    (v, o, tl, q) => `${v} the ${o} in ${tl} ${q}`,
    (v, o, tl, q) => `I need to ${v} ${o} from our ${tl} setup, ${q}`,
    (v, o, tl, q) => `can you help me ${v} these ${tl} ${o}? ${q}`,
    (v, o, tl, q) => `${tl}: ${v} ${o} please (${q})`,
  ];
  const queries: LabelledQuery[] = [];
  for (let i = 0; i < options.queries; i++) {
    if (random() < noSkillShare || tools.length === 0) {
      queries.push({ id: `syn-${i}`, query: pick(NO_SKILL_QUERIES, random), relevant: [] });
      continue;
    }
    const index = Math.floor(random() * tools.length);
    const { tool, object, verb, qualifier } = combos[index]!;
    // A third of queries reuse the catalog's own words; the rest paraphrase every slot.
    const literal = random() < 1 / 3;
    const text = pick(templates, random)(
      say(verb, random, literal),
      say(object, random, literal),
      say(tool, random, literal && random() < 0.5),
      say(qualifier, random, literal),
    );
    queries.push({ id: `syn-${i}`, query: text, relevant: [tools[index]!.name] });
  }
  return { tools, queries };
}
