/**
 * MCP stdio server with two tools: `search_skills` (ranked skills for a task) and `read_skill`
 * (a skill's instructions, folder and bundled files, or one of those). stdout carries protocol only.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { statSync } from 'node:fs';
import { z } from 'zod';
import { neutralizeReminderText } from '../attachments/reminder.js';
import { closeSkillNames, findSkillByName, userOnlyMessage } from '../attachments/skill-tool.js';
import { isOfferedToModel, offeredHits } from '../load/invocation.js';
import { utf8Boundary } from '../load/skill.js';
import { withoutLoneCompanions } from '../search/companions.js';
import { LEXICAL_FIELDS, type SearchMode, type Skill } from '../types.js';
import { escapeForTerminal } from '../util/escape.js';
import { IdleCollector } from '../util/idle-collector.js';
import { roundExplanation } from './explanation.js';
import { capQuery } from './query-cap.js';
import { SKILL_FOLDER_LIMITS, listSkillFiles, readSkillFile, skillFolder } from './skill-folder.js';
import type { SkillService } from './service.js';

export const MCP_SERVER_NAME = 'skill-search';
/** Upper bound on `k` a client may ask for. */
export const MAX_MCP_K = 50;
/** Longest `query` accepted (as the socket's request line); it is searched cut to MAX_QUERY_CHARS. */
export const MAX_MCP_QUERY_CHARS = 64 * 1024;
/** Longest `name` accepted: names are at most 128 characters, with room for a `/` and spaces. */
export const MAX_MCP_NAME_CHARS = 256;
/** Longest bundled-file path accepted by `read_skill`. */
const MAX_MCP_FILE_CHARS = 1024;

/** What the server tells the client about itself (MCP `instructions`, shown to the model by hosts that use them). */
export const MCP_INSTRUCTIONS = [
  'Skills are reusable instructions for recurring tasks (filling PDF forms, bisecting a regression, writing a migration, …).',
  'Before a task that a skill could cover, call search_skills with the task in plain words; it returns the best matches first, or none.',
  "To use a match, call read_skill with its name: you get its instructions, its folder and the files it bundles; read one of those with read_skill's `file`, relative to the folder.",
].join(' ');

export interface SkillSearchMcpOptions {
  readonly service: SkillService;
  /** Results when the client gives no `k`. */
  readonly k: number;
  readonly mode: SearchMode;
  readonly version: string;
  readonly log: (line: string) => void;
  /** Told about every tool call in flight, so a shutdown can let them answer first. */
  readonly track?: <T>(work: Promise<T>) => Promise<T>;
}

/** `HitExplanation` (src/types.ts), numbers rounded to 4 decimals. */
const whySchema = z.object({
  matched: z.object(Object.fromEntries(LEXICAL_FIELDS.map((field) => [field, z.array(z.string()).optional()]))),
  lexical: z.object({ bm25: z.number(), coverage: z.number() }).optional(),
  dense: z.object({ cosine: z.number(), centered: z.number() }).optional(),
  order: z.number().optional(),
  answerable: z.number().optional(),
  fits: z.number().optional(),
  threshold: z.number(),
  passed: z.boolean(),
  named: z.literal(true).optional(),
  translation: z.object({ language: z.string(), english: z.string() }).optional(),
});

const hitSchema = z.object({
  name: z.string(),
  description: z.string(),
  whenToUse: z.string().optional(),
  source: z.string(),
  score: z.number(),
  path: z.string(),
  why: whySchema.describe('why it was suggested: words matched per field, similarity, relevance factors, threshold').optional(),
});

const searchOutput = { query: z.string(), hits: z.array(hitSchema) };

export function createSkillSearchMcpServer(options: SkillSearchMcpOptions): McpServer {
  const track = options.track ?? (<T>(work: Promise<T>) => work);
  const server = new McpServer({ name: MCP_SERVER_NAME, version: options.version }, { instructions: MCP_INSTRUCTIONS });

  server.registerTool(
    'search_skills',
    {
      title: 'Search skills',
      description:
        'Find the skills (reusable instructions) relevant to a task. Returns the best matches first, or none when nothing fits. Read one with read_skill.',
      inputSchema: {
        query: z.string().min(1).max(MAX_MCP_QUERY_CHARS).describe('the task or question, in plain words'),
        k: z.number().int().min(1).max(MAX_MCP_K).optional().describe(`how many results at most, 1 to ${MAX_MCP_K} (default ${options.k})`),
        explain: z.boolean().optional().describe('also say why each hit was suggested (matched words, scores), for debugging'),
      },
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, k, explain }, extra) => track(searchSkills(capQuery(query), k, explain === true, extra.signal)),
  );

  // structuredContent is what Claude Code and Codex show the model (in place of the text): what the text says, `why` only when asked.
  async function searchSkills(query: string, k: number | undefined, explain: boolean, signal: AbortSignal) {
    const hits = withoutLoneCompanions(offeredHits(await options.service.search(query, { k: k ?? options.k, mode: options.mode, explain, signal })));
    const structured = {
      query,
      hits: hits.map(({ skill, score, why }) => ({
        // Names are validated on load; neutralised here too, as everything this tool returns.
        name: neutralizeReminderText(skill.name),
        description: neutralizeReminderText(skill.description),
        ...(skill.whenToUse === undefined ? {} : { whenToUse: neutralizeReminderText(skill.whenToUse) }),
        source: skill.source,
        score: Math.round(score * 10_000) / 10_000,
        path: escapeForTerminal(neutralizeReminderText(skill.path)),
        ...(why === undefined ? {} : { why: roundExplanation(why) }),
      })),
    };
    const line = (hit: (typeof structured.hits)[number], i: number) =>
      `${i + 1}. ${hit.name} (${hit.score.toFixed(3)}): ${hit.description}${hit.whenToUse ? ` - ${hit.whenToUse}` : ''} [${neutralizeReminderText(hit.path)}]`;
    const text = structured.hits.length === 0 ? `No skill fits "${query}".` : structured.hits.map(line).join('\n');
    return { ...textResult(text), structuredContent: structured };
  }

  server.registerTool(
    'read_skill',
    {
      title: 'Read a skill',
      description:
        "Return a skill's instructions (its SKILL.md body) by name, as search_skills returned it, with its folder and the files it bundles. With `file`, return that bundled file instead.",
      inputSchema: {
        name: z.string().min(1).max(MAX_MCP_NAME_CHARS).describe('the skill name, as search_skills returned it'),
        file: z
          .string()
          .min(1)
          .max(MAX_MCP_FILE_CHARS)
          .optional()
          .describe('a file the skill bundles, relative to its folder (as read_skill listed it), e.g. scripts/fill.py'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ name, file }) => track(readSkill(name, file)),
  );

  async function readSkill(name: string, file: string | undefined) {
    const skills = await options.service.skills();
    const skill = findSkillByName(skills, name);
    // As the Skill tool (attachments/skill-tool.ts): a skill its author kept from the model is the user's to run.
    if (skill && !isOfferedToModel(skill)) return textResult(userOnlyMessage(skill), true);
    if (skill) {
      const folder = skillFolder(skill);
      if (file !== undefined) return readBundled(skill.name, folder, file);
      if (folder === undefined) return textResult(neutralizeReminderText(boundedBody(skill)));
      const { files, more } = await listSkillFiles(folder);
      const listed = files.length === 0 ? 'none' : files.map((entry) => escapeForTerminal(entry)).join(', ');
      const header = [
        `Skill folder: ${escapeForTerminal(folder)}`,
        `Bundled files: ${listed}${more > 0 ? ` (and ${more} more)` : ''}`,
        files.length === 0 ? '' : 'Read one with read_skill and its `file`, or open it from the folder.',
      ].filter((line) => line !== '');
      return textResult(neutralizeReminderText(`${header.join('\n')}\n\n${boundedBody(skill)}`));
    }
    const suggestions = closeSkillNames(name, skills);
    const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(', ')}?` : ' Use search_skills to find one.';
    return textResult(`Unknown skill "${name}".${hint}`, true);
  }

  async function readBundled(name: string, folder: string | undefined, file: string) {
    if (folder === undefined) return textResult(`Skill "${neutralizeReminderText(name)}" has no folder of bundled files.`, true);
    try {
      const read = await readSkillFile(folder, file);
      const note = read.truncated ? `\n\n[cut at ${SKILL_FOLDER_LIMITS.maxReadBytes} of ${read.size} bytes]` : '';
      return textResult(neutralizeReminderText(`${read.text}${note}`));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return textResult(neutralizeReminderText(escapeForTerminal(message)), true);
    }
  }

  return server;
}

/**
 * The skill's body cut, as a bundled file's read is, to `SKILL_FOLDER_LIMITS.maxReadBytes` (a
 * command's file can be megabytes), with where it was cut and the file that holds all of it.
 */
function boundedBody(skill: Pick<Skill, 'body' | 'path'>): string {
  const max = SKILL_FOLDER_LIMITS.maxReadBytes;
  const bytes = Buffer.from(skill.body, 'utf8');
  if (bytes.length <= max) return skill.body;
  const kept = bytes.subarray(0, utf8Boundary(bytes, max)).toString('utf8');
  const fileBytes = fileSize(skill.path);
  const whole = fileBytes === undefined ? 'the whole skill' : `the whole skill (${fileBytes} bytes)`;
  return `${kept}\n\n[cut at ${max} bytes of its body; ${whole} is in ${escapeForTerminal(skill.path)}]`;
}

/** The file's own size (undefined when it cannot be read): a body over the loader's file limit is already cut, so its length would understate the file. */
function fileSize(file: string): number | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false })?.size;
  } catch {
    return undefined;
  }
}

/** A tool result of one text part. */
function textResult(text: string, isError = false) {
  return { content: [{ type: 'text' as const, text }], ...(isError ? { isError } : {}) };
}

export interface ServeMcpOptions extends SkillSearchMcpOptions {
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
  /** Stops the server (SIGINT/SIGTERM in the CLI). */
  readonly signal?: AbortSignal;
  /**
   * Called once the client has finished the MCP handshake and had the answer to its next request
   * (its tool list, in the hosts seen): heavy start-up work waits for it, so that a host which
   * gives a server little time to list its tools (Codex; docs/hosts.md) is answered first.
   */
  readonly onInitialized?: () => void;
  /** Touched as each tool call ends (a re-sync leaves garbage, collected once quiet), closed on stop. @default a new {@link IdleCollector} */
  readonly collector?: Pick<IdleCollector, 'touch' | 'close'>;
}

/** The stdio transport, telling `onAnswered` as each answer to a request has been written. */
class AnsweringTransport extends StdioServerTransport {
  constructor(
    stdin: import('node:stream').Readable,
    stdout: import('node:stream').Writable,
    private readonly onAnswered: () => void,
  ) {
    super(stdin, stdout);
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    await super.send(message);
    if ('id' in message && !('method' in message)) this.onAnswered();
  }
}

/** Serves until the client closes stdin, the transport closes, or `signal` aborts. */
export async function serveMcpStdio(options: ServeMcpOptions): Promise<void> {
  const collector = options.collector ?? new IdleCollector();
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    void work
      .finally(() => {
        inflight.delete(work);
        collector.touch();
      })
      .catch(() => undefined);
    return work;
  };
  const server = createSkillSearchMcpServer({ ...options, track });
  const stdin = (options.stdin ?? process.stdin) as NodeJS.ReadableStream & import('node:stream').Readable;
  const stdout = (options.stdout ?? process.stdout) as NodeJS.WritableStream & import('node:stream').Writable;
  let heavyWorkDue = false;
  server.server.oninitialized = () => {
    heavyWorkDue = true;
  };
  const transport = new AnsweringTransport(stdin, stdout, () => {
    if (!heavyWorkDue) return;
    heavyWorkDue = false;
    options.onInitialized?.();
  });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  transport.onerror = (error) => options.log(`skill-search mcp: transport error: ${error.message}`);
  const stop = () => void server.close().catch(() => undefined);
  // A client that writes its last request and closes stdin still gets its answers.
  const drainThenStop = () => {
    void (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
      await new Promise((resolve) => setImmediate(resolve));
      stop();
    })();
  };
  stdin.once('end', drainThenStop);
  stdin.once('close', drainThenStop);
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    await server.connect(transport);
    if (options.signal?.aborted) stop();
    await closed;
  } finally {
    collector.close();
    stdin.off('end', drainThenStop);
    stdin.off('close', drainThenStop);
    options.signal?.removeEventListener('abort', stop);
  }
}
