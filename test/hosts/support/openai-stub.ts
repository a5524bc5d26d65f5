/**
 * A loopback stub of the OpenAI Responses API for Codex (a `model_providers` entry with
 * `wire_api = "responses"`): every request is recorded, `POST …/responses` answers one short
 * assistant message as SSE, anything else an empty list.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, type RecordingServer, sendEvent, sendJson, startRecordingServer, startSse } from './recording-server.js';
import { STUB_REPLY } from './anthropic-stub.js';

let responseCount = 0;

function answerResponses(response: ServerResponse): void {
  const id = `resp_stub_${++responseCount}`;
  startSse(response);
  sendEvent(response, 'response.created', { type: 'response.created', response: { id } });
  sendEvent(response, 'response.output_item.done', {
    type: 'response.output_item.done',
    output_index: 0,
    item: { type: 'message', role: 'assistant', id: `msg_${id}`, status: 'completed', content: [{ type: 'output_text', text: STUB_REPLY, annotations: [] }] },
  });
  sendEvent(response, 'response.completed', {
    type: 'response.completed',
    response: { id, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 4, output_tokens_details: null, total_tokens: 14 } },
  });
  response.end();
}

function handle(request: RecordedRequest, response: ServerResponse): void {
  if (request.method === 'POST' && request.path.endsWith('/responses')) answerResponses(response);
  else sendJson(response, 200, { object: 'list', data: [], models: [] });
}

export function startOpenAiStub(): Promise<RecordingServer> {
  return startRecordingServer(handle);
}

/** The recorded `POST …/responses` requests. */
export function responsesRequests(server: RecordingServer): RecordedRequest[] {
  return server.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/responses'));
}
