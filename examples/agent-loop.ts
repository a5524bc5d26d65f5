/**
 * A minimal agent loop with EXPERIMENTAL_SKILL_SEARCH on, no network:
 *
 *   npx tsx examples/agent-loop.ts            # the real loader + search engine (USE-lite, offline)
 *   npx tsx examples/agent-loop.ts --fake     # a keyword searcher, no model
 *   npx tsx examples/agent-loop.ts --model hash
 *
 * Each turn: the user message arrives → the listing delta is appended (bundled + MCP only
 * under the flag) → the skill search starts in the background → a simulated model streams
 * and calls a fake tool → after tools, the prefetch is collected and a skill_discovery
 * attachment appended when it found something new → the model may then invoke the Skill tool.
 * The line `prefetch added … ms` is how long the turn waited for the search: ~0 when the
 * search finished while the model was streaming.
 */
// The imports are the package's public subpaths (skill-search/attachments, /prefetch, …), from source.
import { fileURLToPath } from 'node:url';
import {
  InvocationLog,
  SKILL_TOOL_NAME,
  SkillListingTracker,
  attachmentMessage,
  type CatalogChanges,
  invokeSkill,
  normalizeMessagesForAPI,
  type Attachment,
  type Message,
} from '../src/api/attachments.js';
import {
  SkillPrefetcher,
  isExperimentalSkillSearch,
  listingSkills,
  type SearchHit,
  type SearchRequest,
  type Skill,
  type SkillSearcher,
} from '../src/api/prefetch.js';

const PROJECT_DIR = fileURLToPath(new URL('./project/', import.meta.url));
const TOKEN_DELAY_MS = 15;
const TOOL_DELAY_MS = 120;

interface SearchSetup {
  readonly label: string;
  /**
   * Discovery threshold. The engine's own abstention (hybrid score 0.35) keeps loosely related
   * skills; a turn's discovery should only carry the clearly relevant ones.
   */
  readonly minScore: number;
  readonly skills: readonly Skill[];
  readonly searcher: SkillSearcher;
  /** The live catalog, when there is one: each change resets the listing tracker. */
  readonly catalog?: CatalogChanges;
  close(): Promise<void>;
}

/** The real stack: skill files under examples/project + bundled skills + one MCP skill, hybrid search. */
async function realSetup(model: string | undefined): Promise<SearchSetup> {
  const [{ SkillCatalog }, { SkillSearchEngine }, { resolveEmbedder }] = await Promise.all([
    import('../src/api/load.js'),
    import('../src/api/search.js'),
    import('../src/api/embed.js'),
  ]);
  // `home` and `managedDir` are pinned so the output does not depend on this machine's skills.
  const catalog = new SkillCatalog({ cwd: PROJECT_DIR, home: PROJECT_DIR, managedDir: null, watch: false });
  catalog.registerMcpSkills('tracker', [
    {
      name: 'jira-ticket',
      description: 'Create, update and search Jira tickets',
      whenToUse: 'when the user mentions a ticket, an issue key like ABC-123, or a sprint',
      body: '# Jira tickets\n\nUse the tracker MCP server tools.',
    },
  ]);
  const snapshot = await catalog.get();
  const embedder = resolveEmbedder(model);
  const engine = await SkillSearchEngine.open({ embedder });
  await engine.sync(snapshot.skills);
  return {
    label: `real engine (${embedder.id}), ${snapshot.skills.length} skills`,
    minScore: 0, // the engine abstains on calibrated relevance already
    skills: snapshot.skills,
    searcher: engine,
    catalog,
    close: async () => {
      await engine.close();
      await catalog.close();
    },
  };
}

/** Word overlap over name/description/whenToUse: enough to show the flow without a model. */
class KeywordSearcher implements SkillSearcher {
  readonly #skills: readonly Skill[];
  constructor(skills: readonly Skill[]) {
    this.#skills = skills;
  }
  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    await delay(30, request.signal);
    const words = new Set(query.toLowerCase().match(/[a-z0-9]{4,}/g) ?? []);
    return this.#skills
      .map((skill) => {
        const text = `${skill.name} ${skill.description} ${skill.whenToUse ?? ''}`.toLowerCase();
        const matched = [...words].filter((word) => text.includes(word)).length;
        return { skill, score: words.size === 0 ? 0 : matched / words.size, via: ['lexical'] as const };
      })
      .filter((hit) => hit.score >= 0.25)
      .sort((a, b) => b.score - a.score)
      .slice(0, request.k ?? 5);
  }
}

function fakeSetup(reason: string): SearchSetup {
  const make = (name: string, source: Skill['source'], description: string, whenToUse: string): Skill => ({
    name,
    description,
    whenToUse,
    source,
    rank: source === 'bundled' ? 1 : source === 'mcp' ? 8 : 5,
    path: `/example/${name}/SKILL.md`,
    id: name,
    body: `# ${name}\n\n${description}.`,
    tokenEstimate: Math.ceil((name.length + description.length + whenToUse.length) / 4),
    contentHash: name,
  });
  const skills = [
    make('systematic-debugging', 'bundled', 'Systematic debugging workflow', 'when a bug or a failing test shows up'),
    make(
      'sql-migration',
      'skills',
      'Write safe, reversible database schema migrations',
      'when the user asks to add an index or column or change a database schema',
    ),
    make(
      'docker-deploy',
      'skills',
      'Deploy services with Docker Compose to staging or production',
      'when the user asks to deploy a service with docker compose',
    ),
    make('jira-ticket', 'mcp', 'Create, update and search Jira tickets', 'when the user mentions a ticket'),
  ];
  return { label: `keyword searcher (${reason}), ${skills.length} skills`, minScore: 0, skills, searcher: new KeywordSearcher(skills), close: async () => {} };
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A simulated streaming model: prints the reply token by token. */
async function stream(text: string, signal: AbortSignal): Promise<string> {
  process.stdout.write('  assistant: ');
  for (const token of text.split(/(?<=\s)/)) {
    await delay(TOKEN_DELAY_MS, signal);
    process.stdout.write(token);
  }
  process.stdout.write('\n');
  return text;
}

/** A fake tool (think `ls` or a test run) that takes a while. */
async function runFakeTool(command: string, signal: AbortSignal): Promise<string> {
  await delay(TOOL_DELAY_MS, signal);
  return `$ ${command}\n(ok)`;
}

function show(attachment: Attachment): void {
  const [rendered] = normalizeMessagesForAPI([attachmentMessage(attachment)]);
  console.log(`  [${attachment.type}]\n${(rendered?.content ?? '').replace(/^/gm, '    ')}`);
}

const TURNS = [
  {
    user: 'Add an index on orders.created_at and write the migration for it.',
    reply: "I'll check the existing migrations first, then write the new one with an up and a down step.",
    tool: 'ls db/migrations',
  },
  {
    user: 'Great. Now deploy the service to staging with docker compose.',
    reply: 'Let me look at the compose files and the current image tag before deploying anything.',
    tool: 'cat compose.staging.yml',
  },
  {
    user: 'Thanks, that is all for today!',
    reply: "You're welcome. The migration and the staging deploy are both done; nothing else is pending.",
    tool: 'git status --short',
  },
] as const;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const modelIndex = args.indexOf('--model');
  const model = modelIndex === -1 ? undefined : args[modelIndex + 1];
  // The example always runs the experimental path; a harness would pass its own option or rely on the env.
  const experimental = isExperimentalSkillSearch(process.env, true);

  let setup: SearchSetup;
  if (args.includes('--fake')) {
    setup = fakeSetup('--fake');
  } else {
    try {
      setup = await realSetup(model);
    } catch (error) {
      setup = fakeSetup(`real engine unavailable: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  console.log(`skills: ${setup.label}; EXPERIMENTAL_SKILL_SEARCH ${experimental ? 'on' : 'off'}\n`);

  const messages: Message[] = [];
  const tracker = new SkillListingTracker();
  const unfollow = setup.catalog === undefined ? () => undefined : tracker.follow(setup.catalog);
  const log = new InvocationLog();
  /** Names the model has seen (listed or discovered); discovery skips them. */
  const visible = new Set<string>();
  const prefetcher = new SkillPrefetcher({ searcher: setup.searcher, minScore: setup.minScore });
  const append = (attachment: Attachment): void => {
    messages.push(attachmentMessage(attachment));
    // A name the budget listed without its description is not visible: discovery may still suggest it.
    if (attachment.type === 'skill_listing') for (const name of attachment.visibleNames ?? attachment.skillNames) visible.add(name);
    if (attachment.type === 'skill_discovery') for (const skill of attachment.skills) visible.add(skill.name);
    show(attachment);
  };

  for (const [index, turn] of TURNS.entries()) {
    console.log(`── turn ${index + 1} ─────────────────────────────────────────`);
    console.log(`  user: ${turn.user}`);
    const controller = new AbortController();
    const onSigint = (): void => controller.abort();
    process.once('SIGINT', onSigint);
    messages.push({ type: 'user', content: turn.user });

    const listing = tracker.next(listingSkills(setup.skills, experimental), { usage: log.usage });
    if (listing !== null) append(listing);

    const prefetch = experimental ? prefetcher.start({ userMessage: turn.user, signal: controller.signal, visible, invoked: log.names() }) : undefined;
    const turnStarted = performance.now();
    try {
      const reply = await stream(turn.reply, controller.signal);
      messages.push({ type: 'assistant', content: reply, toolUses: [{ id: `bash-${index}`, name: 'Bash', input: { command: turn.tool } }] });
      messages.push({ type: 'tool_result', toolUseId: `bash-${index}`, content: await runFakeTool(turn.tool, controller.signal) });
      const hiddenBehindMs = performance.now() - turnStarted;

      const discovery = (await prefetch?.collect()) ?? null;
      if (discovery !== null) {
        append(discovery);
        console.log(`  scores: ${discovery.skills.map((skill) => `${skill.name} ${skill.score.toFixed(2)}`).join(', ')}`);
      } else console.log('  (no skill_discovery: nothing relevant and new)');
      if (prefetch !== undefined) {
        const { searchMs, addedMs } = prefetch.timing;
        console.log(`  prefetch: search ${fmt(searchMs)} ms, streaming + tools ${fmt(hiddenBehindMs)} ms, prefetch added ${fmt(addedMs)} ms to the turn`);
      }

      const chosen = discovery?.skills[0];
      if (chosen !== undefined) {
        const id = `skill-${index}`;
        messages.push({ type: 'assistant', content: '', toolUses: [{ id, name: SKILL_TOOL_NAME, input: { skill: chosen.name } }] });
        const result = invokeSkill({ skill: chosen.name }, { skills: setup.skills, log });
        messages.push({ type: 'tool_result', toolUseId: id, content: result.content, ...(result.isError ? { isError: true } : {}) });
        console.log(`  ${SKILL_TOOL_NAME}({ skill: "${chosen.name}" }) → ${result.content.split('\n')[0] ?? ''}`);
      }
    } finally {
      prefetch?.dispose();
      process.off('SIGINT', onSigint);
    }
    console.log('');
  }

  const api = normalizeMessagesForAPI(messages);
  console.log(
    `conversation: ${messages.length} messages → ${api.length} API messages ` +
      `(${api.filter((m) => m.isMeta === true).length} system reminders); invoked: ${[...log.names()].join(', ') || 'none'}`,
  );
  unfollow();
  await setup.close();
}

function fmt(ms: number | undefined): string {
  return ms === undefined ? '-' : ms.toFixed(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
