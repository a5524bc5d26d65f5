/**
 * MCP stdio server with two tools: `search_skills` (ranked skills for a task) and
 * `read_skill` (a skill's instructions by name). stdout carries protocol only; every log
 * line goes to the `log` callback (stderr in the CLI).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { neutralizeReminderText } from '../attachments/reminder.js';
import { findSkillByName, suggestNames } from '../attachments/skill-tool.js';
import { offeredHits } from '../load/invocation.js';
import { LEXICAL_FIELDS, type SearchMode } from '../types.js';
import { escapeForTerminal } from '../util/escape.js';
import { roundExplanation } from './explanation.js';
import { capQuery } from './query-cap.js';
import type { SkillService } from './service.js';

export const MCP_SERVER_NAME = 'skill-search';
/** Upper bound on `k` a client may ask for. */
export const MAX_MCP_K = 50;
/** Longest `query` accepted (as the socket's request line); it is searched cut to MAX_QUERY_CHARS. */
export const MAX_MCP_QUERY_CHARS = 64 * 1024;
/** Longest `name` accepted: names are at most 128 characters, with room for a `/` and spaces. */
export const MAX_MCP_NAME_CHARS = 256;

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
  const server = new McpServer({ name: MCP_SERVER_NAME, version: options.version });

  server.registerTool(
    'search_skills',
    {
      title: 'Search skills',
      description:
        'Find the skills (reusable instructions) relevant to a task. Returns the best matches first, or none when nothing fits. Read one with read_skill.',
      inputSchema: {
        query: z.string().min(1).max(MAX_MCP_QUERY_CHARS).describe('the task or question, in plain words'),
        k: z.number().int().min(1).max(MAX_MCP_K).optional().describe(`how many results at most (default ${options.k})`),
      },
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, k }, extra) => track(searchSkills(query, k, extra.signal)),
  );

  async function searchSkills(query: string, k: number | undefined, signal: AbortSignal) {
    const hits = offeredHits(await options.service.search(capQuery(query), { k: k ?? options.k, mode: options.mode, explain: true, signal }));
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
    const text =
      structured.hits.length === 0
        ? `No skill fits "${query}".`
        : structured.hits
            .map((hit, i) => `${i + 1}. ${hit.name} (${hit.score.toFixed(3)}): ${hit.description}${hit.whenToUse ? ` - ${hit.whenToUse}` : ''}`)
            .join('\n');
    return { content: [{ type: 'text' as const, text }], structuredContent: structured };
  }

  server.registerTool(
    'read_skill',
    {
      title: 'Read a skill',
      description: "Return a skill's full instructions (its SKILL.md body) by name, as search_skills returned it.",
      inputSchema: { name: z.string().min(1).max(MAX_MCP_NAME_CHARS).describe('the skill name, as search_skills returned it') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ name }) => track(readSkill(name)),
  );

  async function readSkill(name: string) {
    const skills = await options.service.skills();
    const skill = findSkillByName(skills, name);
    if (skill) return { content: [{ type: 'text' as const, text: neutralizeReminderText(skill.body) }] };
    const suggestions = suggestNames(
      name.trim().replace(/^\//, ''),
      skills.map((candidate) => candidate.name),
    );
    const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(', ')}?` : ' Use search_skills to find one.';
    return { content: [{ type: 'text' as const, text: `Unknown skill "${name}".${hint}` }], isError: true };
  }

  return server;
}

export interface ServeMcpOptions extends SkillSearchMcpOptions {
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
  /** Stops the server (SIGINT/SIGTERM in the CLI). */
  readonly signal?: AbortSignal;
}

/** Serves until the client closes stdin, the transport closes, or `signal` aborts. */
export async function serveMcpStdio(options: ServeMcpOptions): Promise<void> {
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    void work.finally(() => inflight.delete(work)).catch(() => undefined);
    return work;
  };
  const server = createSkillSearchMcpServer({ ...options, track });
  const stdin = (options.stdin ?? process.stdin) as NodeJS.ReadableStream & import('node:stream').Readable;
  const stdout = (options.stdout ?? process.stdout) as NodeJS.WritableStream & import('node:stream').Writable;
  const transport = new StdioServerTransport(stdin, stdout);
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
    options.log(`skill-search mcp: serving search_skills and read_skill on stdio`);
    if (options.signal?.aborted) stop();
    await closed;
  } finally {
    stdin.off('end', drainThenStop);
    stdin.off('close', drainThenStop);
    options.signal?.removeEventListener('abort', stop);
  }
}
