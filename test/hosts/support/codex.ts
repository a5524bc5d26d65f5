/** Codex headless (`codex exec`) against the Responses stub, and what its request carries. */
import type { HostHome, ProcessResult } from './host-home.js';
import { responsesRequests } from './openai-stub.js';
import type { RecordedRequest, RecordingServer } from './recording-server.js';

interface InputItem {
  readonly type?: string;
  readonly role?: string;
  readonly content?: readonly { type: string; text?: string }[];
}

export interface ResponsesBody {
  readonly model: string;
  readonly input: readonly InputItem[];
  readonly tools?: readonly { type: string; name?: string; tools?: readonly { name: string }[] }[];
}

export interface CodexRunOptions {
  /** `codex exec resume --last` (the latest session in the folder). */
  readonly resume?: boolean;
  /** The model given with `-c model=…`; null: none, the one its config.toml sets. @default 'gpt-5' */
  readonly model?: string | null;
}

/** The `codex exec` arguments that point Codex at the stub (a `model_providers.stub` entry). */
export function codexArgs(stub: RecordingServer, { resume = false, model = 'gpt-5' }: CodexRunOptions = {}): string[] {
  return [
    'exec',
    ...(resume ? ['resume', '--last'] : []),
    '--skip-git-repo-check',
    '-c',
    'model_provider="stub"',
    '-c',
    `model_providers.stub={ name = "stub", base_url = "${stub.url}/v1", wire_api = "responses", env_key = "STUB_API_KEY" }`,
    ...(model === null ? [] : ['-c', `model="${model}"`]),
  ];
}

export const CODEX_ENV: Readonly<Record<string, string>> = { STUB_API_KEY: 'sk-stub' };

function itemText(item: InputItem): string {
  return (item.content ?? []).map((part) => part.text ?? '').join('');
}

/** The `developer` messages after the prompt: where Codex 0.171.0 puts a hook's additionalContext. */
export function codexHookContext(body: ResponsesBody, prompt: string): string | undefined {
  const at = body.input.findLastIndex((item) => item.role === 'user' && itemText(item) === prompt);
  const after = body.input.slice(at + 1).filter((item) => item.type === 'message' && item.role === 'developer');
  return after.length === 0 ? undefined : after.map(itemText).join('\n');
}

/** Codex's skills section (`<skills_instructions>…</skills_instructions>`) as sent. */
export function codexSkillsSection(body: ResponsesBody): string | undefined {
  for (const item of body.input) {
    for (const part of item.content ?? []) {
      if (part.text?.includes('<skills_instructions>')) return part.text;
    }
  }
  return undefined;
}

/** Names of the MCP tools offered, as `<namespace>.<tool>`. */
export function codexMcpTools(body: ResponsesBody): string[] {
  return (body.tools ?? [])
    .filter((tool) => tool.type === 'namespace' && tool.name?.startsWith('mcp__'))
    .flatMap((tool) => (tool.tools ?? []).map((inner) => `${tool.name}.${inner.name}`));
}

export interface CodexTurn {
  readonly result: ProcessResult;
  readonly request: ResponsesBody;
  readonly all: readonly RecordedRequest[];
}

export async function promptCodex(
  home: HostHome,
  bin: string,
  stub: RecordingServer,
  prompt: string,
  flags: readonly string[] = [],
  options: CodexRunOptions & { readonly env?: Record<string, string> } = {},
): Promise<CodexTurn> {
  const before = stub.requests.length;
  const result = await home.run(bin, [...codexArgs(stub, options), ...flags, prompt], { ...CODEX_ENV, ...options.env });
  const all = stub.requests.slice(before);
  const request = responsesRequests({ ...stub, requests: all })
    .map((recorded) => recorded.body as ResponsesBody)
    .find((body) => body.input.some((item) => item.role === 'user' && itemText(item) === prompt));
  if (request === undefined) {
    throw new Error(`codex exec sent no Responses request with the prompt (exit ${result.code}; ${all.length} requests)\n${result.stderr}`);
  }
  return { result, request, all };
}
