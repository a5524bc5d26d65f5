/**
 * A loopback stub of the OpenAI Responses API for Codex (a `model_providers` entry with
 * `wire_api = "responses"`): every request is recorded, `POST …/responses` answers one short
 * assistant message as SSE (or, while a scripted tool call has no output in the input yet, that
 * call), anything else an empty list.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, type RecordingServer, sendEvent, sendJson, startRecordingServer, startSse } from './recording-server.js';
import { STUB_REPLY } from './anthropic-stub.js';

let responseCount = 0;

/** A tool call the stub model makes: an MCP tool is `namespace` `mcp__<server>` and its `name`. */
export interface StubToolCall {
  readonly namespace?: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

function answerResponses(body: unknown, calls: readonly StubToolCall[], response: ServerResponse): void {
  const id = `resp_stub_${++responseCount}`;
  const input = (body as { input?: { type?: string }[] } | undefined)?.input ?? [];
  const call = calls[input.filter((item) => item.type === 'function_call_output').length];
  startSse(response);
  sendEvent(response, 'response.created', { type: 'response.created', response: { id } });
  sendEvent(response, 'response.output_item.done', {
    type: 'response.output_item.done',
    output_index: 0,
    item:
      call === undefined
        ? { type: 'message', role: 'assistant', id: `msg_${id}`, status: 'completed', content: [{ type: 'output_text', text: STUB_REPLY, annotations: [] }] }
        : { type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, status: 'completed', ...call, arguments: JSON.stringify(call.arguments) },
  });
  sendEvent(response, 'response.completed', {
    type: 'response.completed',
    response: { id, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 4, output_tokens_details: null, total_tokens: 14 } },
  });
  response.end();
}

/** `calls`: the tool calls the model makes, one per turn of the exchange, before its reply. */
export function startOpenAiStub(calls: readonly StubToolCall[] = []): Promise<RecordingServer> {
  return startRecordingServer((request: RecordedRequest, response: ServerResponse) => {
    if (request.method === 'POST' && request.path.endsWith('/responses')) answerResponses(request.body, calls, response);
    else sendJson(response, 200, { object: 'list', data: [], models: [] });
  });
}

/** The recorded `POST …/responses` requests. */
export function responsesRequests(server: RecordingServer): RecordedRequest[] {
  return server.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/responses'));
}
