/** Claude Code headless (`claude -p`) against the Messages stub, and what its request carries. */
import { messagesRequests } from './anthropic-stub.js';
import type { HostHome, ProcessResult } from './host-home.js';
import type { RecordedRequest, RecordingServer } from './recording-server.js';

/** The prefix Claude Code 2.1.337 puts before a UserPromptSubmit hook's additionalContext. */
export const CLAUDE_HOOK_PREFIX = 'UserPromptSubmit hook additional context: ';

export interface MessagesBody {
  readonly model: string;
  readonly messages: readonly { role: string; content: string | readonly { type: string; text?: string }[] }[];
  readonly system?: readonly { type: string; text?: string }[];
  readonly tools?: readonly { name: string; description?: string }[];
}

export function claudeEnv(stub: RecordingServer): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: stub.url,
    ANTHROPIC_API_KEY: 'sk-ant-stub',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** Every text block of the request's messages, in order. */
export function messageTexts(body: MessagesBody): string[] {
  return body.messages.flatMap((message) =>
    typeof message.content === 'string' ? [message.content] : message.content.flatMap((block) => (block.text === undefined ? [] : [block.text])),
  );
}

/** The date line Claude Code 2.1.337 puts after the listing and the hook's text in its system message. */
const CLAUDE_DATE_LINE = /\n\nToday's date is [\s\S]*$/;

/** The hook's additionalContext as the model receives it, or undefined when none arrived. */
export function claudeHookContext(body: MessagesBody): string | undefined {
  const found = messageTexts(body)
    .map((text) =>
      text.includes(CLAUDE_HOOK_PREFIX) ? text.slice(text.indexOf(CLAUDE_HOOK_PREFIX) + CLAUDE_HOOK_PREFIX.length).replace(CLAUDE_DATE_LINE, '') : undefined,
    )
    .filter((text) => text !== undefined);
  return found.length === 0 ? undefined : found.join('\n');
}

/**
 * The hook's additionalContext that came with the latest `prompt` only (a resumed session's
 * request also carries the earlier turns, their hook text included), or undefined.
 */
export function claudeTurnHookContext(body: MessagesBody, prompt: string): string | undefined {
  const at = body.messages.findLastIndex((message) => message.role === 'user' && messageTexts({ ...body, messages: [message] }).includes(prompt));
  return claudeHookContext({ ...body, messages: body.messages.slice(at + 1) });
}

/** The header of Claude Code's own skill listing (a `system` message in 2.1.337). */
export const CLAUDE_LISTING_HEADER = 'The following skills are available for use with the Skill tool:';

/** Claude Code's skill listing as sent, header included, without any hook text after it. */
export function claudeSkillListing(body: MessagesBody): string | undefined {
  const text = messageTexts(body).find((entry) => entry.includes(CLAUDE_LISTING_HEADER));
  if (text === undefined) return undefined;
  // A system message for a model that takes one mid-conversation (where the date follows it), else a <system-reminder> in a user message.
  const listing = text
    .slice(text.indexOf(CLAUDE_LISTING_HEADER))
    .replace(/\n<\/system-reminder>[\s\S]*$/, '')
    .replace(CLAUDE_DATE_LINE, '');
  const hook = listing.indexOf(CLAUDE_HOOK_PREFIX);
  return (hook < 0 ? listing : listing.slice(0, hook)).trimEnd();
}

export interface ClaudeTurn {
  readonly result: ProcessResult;
  /** The Messages request that carried the prompt (the main turn, not a side call). */
  readonly request: MessagesBody;
  /** Every request the stub received during this run. */
  readonly all: readonly RecordedRequest[];
}

/** `flags` go before `-p`, e.g. `['--continue']` to prompt again in the project's latest session; `env` adds to (or overrides) claudeEnv. */
export async function promptClaude(
  home: HostHome,
  bin: string,
  stub: RecordingServer,
  prompt: string,
  flags: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<ClaudeTurn> {
  const before = stub.requests.length;
  const result = await home.run(bin, [...flags, '-p', prompt], { ...claudeEnv(stub), ...env });
  const all = stub.requests.slice(before);
  const turns = messagesRequests({ ...stub, requests: all }).map((request) => request.body as MessagesBody);
  const request = turns.find((body) => messageTexts(body).includes(prompt));
  if (request === undefined) {
    throw new Error(`claude -p sent no Messages request with the prompt (exit ${result.code}; ${all.length} requests)\n${result.stderr}`);
  }
  return { result, request, all };
}
