import { FakeModelServer, scriptedTurn, type ModelReply } from './fake-model-server.js';
import { finalText, idleText } from './proposed-edit.js';

/**
 * What the fake model is told to do: when the user sends `prompt`, replace `oldString` with
 * `newString` in `filePath` (Claude Code edits only a file the model has read).
 */
export interface AnthropicScript {
  prompt: string;
  filePath: string;
  oldString: string;
  newString: string;
}

interface ContentBlock {
  type: string;
  text?: string;
  tool_use_id?: string;
  content?: string | ContentBlock[];
}

interface MessagesRequest {
  model?: string;
  stream?: boolean;
  messages?: { role: string; content: string | ContentBlock[] }[];
  tools?: { name?: string }[];
}

export type AnthropicReply =
  | { kind: 'Read' | 'Edit'; id: string; input: Record<string, unknown> }
  | { kind: 'text'; text: string };

const readCallId = 'toolu_read';
const editCallId = 'toolu_edit';

/** Every text of a message, tool results' included. */
export function messageTexts(content: string | ContentBlock[] | undefined): string[] {
  if (typeof content === 'string') return [content];
  return (content ?? []).flatMap((block) => [
    ...(typeof block.text === 'string' ? [block.text] : []),
    ...(block.content === undefined ? [] : messageTexts(block.content)),
  ]);
}

/**
 * The scripted answer to one request: the prompt → `Read`; its result → `Edit`; its result →
 * the closing text. Everything off the script (titles, suggestions, summaries) gets plain text.
 */
export function chooseAnthropicReply(
  request: MessagesRequest,
  script: AnthropicScript,
): AnthropicReply {
  // Claude Code 2.1.332 puts a `system` message of its own after the conversation.
  const last = request.messages?.filter((message) => message.role !== 'system').at(-1);
  const results = typeof last?.content === 'string' ? [] : (last?.content ?? []);
  const answered = (id: string) =>
    results.some((block) => block.type === 'tool_result' && block.tool_use_id === id);
  const offers = (name: string) => (request.tools ?? []).some((tool) => tool.name === name);
  // Claude Code sends every result of the turn so far in one message: the newest decides.
  if (answered(editCallId)) return { kind: 'text', text: finalText };
  if (answered(readCallId)) {
    const input = {
      file_path: script.filePath,
      old_string: script.oldString,
      new_string: script.newString,
    };
    return { kind: 'Edit', id: editCallId, input };
  }
  const isPrompt =
    last?.role === 'user' &&
    messageTexts(last.content).some((text) => text.includes(script.prompt));
  if (isPrompt && offers('Read') && offers('Edit')) {
    return { kind: 'Read', id: readCallId, input: { file_path: script.filePath } };
  }
  return { kind: 'text', text: idleText };
}

function event(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The reply as the Messages API streams it (server-sent events). */
function streamBody(reply: AnthropicReply, model: string): string {
  const usage = { input_tokens: 1, output_tokens: 1 };
  const message = {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  const block =
    reply.kind === 'text'
      ? { type: 'text', text: '' }
      : { type: 'tool_use', id: reply.id, name: reply.kind, input: {} };
  const delta =
    reply.kind === 'text'
      ? { type: 'text_delta', text: reply.text }
      : { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) };
  return (
    event('message_start', { message }) +
    event('content_block_start', { index: 0, content_block: block }) +
    event('content_block_delta', { index: 0, delta }) +
    event('content_block_stop', { index: 0 }) +
    event('message_delta', {
      delta: { stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
      usage: { output_tokens: 1 },
    }) +
    event('message_stop', {})
  );
}

/** The reply as one JSON message, for a request that does not stream. */
function messageBody(reply: AnthropicReply, model: string): string {
  const content =
    reply.kind === 'text'
      ? [{ type: 'text', text: reply.text }]
      : [{ type: 'tool_use', id: reply.id, name: reply.kind, input: reply.input }];
  return JSON.stringify({
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  });
}

/** A Messages API (`/v1/messages`) on 127.0.0.1 that follows a script, for Claude Code. */
export class FakeAnthropicModel {
  private constructor(
    private readonly server: FakeModelServer,
    readonly baseUrl: string,
    /** Every reply given, in order: what a failing test prints to show how far the CLI got. */
    readonly replies: AnthropicReply['kind'][],
    /** Every request's texts, in order: what a test reads the editor's context from. */
    readonly requests: string[][],
  ) {}

  static async start(script: AnthropicScript): Promise<FakeAnthropicModel> {
    const replies: AnthropicReply['kind'][] = [];
    const requests: string[][] = [];
    const server = await FakeModelServer.start((path, body): ModelReply | undefined => {
      if (path === '/v1/messages/count_tokens') {
        return { status: 200, contentType: 'application/json', body: '{"input_tokens":1}' };
      }
      if (path !== '/v1/messages') return undefined;
      const request = body as MessagesRequest;
      requests.push((request.messages ?? []).flatMap((message) => messageTexts(message.content)));
      return scriptedTurn(request, (r) => chooseAnthropicReply(r, script), replies, {
        defaultModel: 'claude-fake',
        stream: streamBody,
        json: messageBody,
      });
    });
    return new FakeAnthropicModel(server, `http://127.0.0.1:${server.port}`, replies, requests);
  }

  /** Safe to call twice. */
  close(): Promise<void> {
    return this.server.close();
  }
}
