/**
 * A loopback stub of the Anthropic Messages API for Claude Code (`ANTHROPIC_BASE_URL`): every
 * request is recorded, `/v1/messages` answers one short text turn (SSE when the request streams;
 * or, when the request offers a scripted tool whose call it holds no result of yet, a call of it),
 * `count_tokens` a rough count, anything else an empty JSON object.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, type RecordingServer, sendEvent, sendJson, startRecordingServer, startSse } from './recording-server.js';

export const STUB_REPLY = 'Stub model reply.';

interface MessagesBody {
  readonly model?: string;
  readonly stream?: boolean;
  readonly tools?: readonly { name: string }[];
  readonly messages?: readonly unknown[];
}

/** A tool call the stub model makes (streamed requests only), e.g. `mcp__skill-search__search_skills`. */
export interface StubToolUse {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

function message(model: string) {
  return {
    id: 'msg_stub',
    type: 'message',
    role: 'assistant',
    model,
    content: [] as unknown[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 0 },
  };
}

function stubCallId(i: number): string {
  return `toolu_stub_${i}`;
}

function answerMessages(body: MessagesBody, response: ServerResponse, toolUses: readonly StubToolUse[]): void {
  const model = body.model ?? 'stub';
  if (body.stream !== true) {
    sendJson(response, 200, {
      ...message(model),
      content: [{ type: 'text', text: STUB_REPLY }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 4 },
    });
    return;
  }
  startSse(response);
  sendEvent(response, 'message_start', { type: 'message_start', message: message(model) });
  // The first scripted call whose tool this request offers and whose result it does not hold yet.
  const sent = JSON.stringify(body.messages ?? []);
  const at = toolUses.findIndex((call, i) => (body.tools ?? []).some((tool) => tool.name === call.name) && !sent.includes(`"tool_use_id":"${stubCallId(i)}"`));
  if (at >= 0) {
    const block = { type: 'tool_use', id: stubCallId(at), name: toolUses[at]!.name, input: {} };
    sendEvent(response, 'content_block_start', { type: 'content_block_start', index: 0, content_block: block });
    const delta = { type: 'input_json_delta', partial_json: JSON.stringify(toolUses[at]!.input) };
    sendEvent(response, 'content_block_delta', { type: 'content_block_delta', index: 0, delta });
    sendEvent(response, 'content_block_stop', { type: 'content_block_stop', index: 0 });
    sendEvent(response, 'message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 4 } });
    sendEvent(response, 'message_stop', { type: 'message_stop' });
    response.end();
    return;
  }
  sendEvent(response, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  sendEvent(response, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: STUB_REPLY } });
  sendEvent(response, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  sendEvent(response, 'message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } });
  sendEvent(response, 'message_stop', { type: 'message_stop' });
  response.end();
}

/** `toolUses`: the tools the model calls, each once, in order as requests offer them, before its reply. */
export function startAnthropicStub(...toolUses: readonly StubToolUse[]): Promise<RecordingServer> {
  return startRecordingServer((request: RecordedRequest, response: ServerResponse) => {
    if (request.method === 'POST' && request.path === '/v1/messages/count_tokens') {
      sendJson(response, 200, { input_tokens: JSON.stringify(request.body ?? '').length >> 2 });
    } else if (request.method === 'POST' && request.path === '/v1/messages') {
      answerMessages((request.body ?? {}) as MessagesBody, response, toolUses);
    } else {
      sendJson(response, 200, {});
    }
  });
}

/** The recorded `/v1/messages` requests (count_tokens excluded). */
export function messagesRequests(server: RecordingServer): RecordedRequest[] {
  return server.requests.filter((request) => request.method === 'POST' && request.path === '/v1/messages');
}
