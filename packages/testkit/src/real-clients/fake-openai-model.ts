import { finalText, idleText, type ProposedEdit } from './proposed-edit.js';
import { FakeModelServer, scriptedTurn } from './fake-model-server.js';

/** What the fake model is told to do: when the user sends `prompt`, propose `edit`. */
export interface OpenAiScript {
  prompt: string;
  edit: ProposedEdit;
}

interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_call_id?: string;
}

interface ChatRequest {
  model?: string;
  stream?: boolean;
  messages?: ChatMessage[];
  tools?: { function?: { name?: string } }[];
}

export type Reply =
  | { kind: 'read_file'; call: ToolCall }
  | { kind: 'write_file'; call: ToolCall }
  | { kind: 'text'; text: string };

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

// Qwen Code refuses to overwrite a file the model has not read in the session, so the
// script is: the prompt → read_file; its result → write_file; its result → closing text.
const readCallId = 'call_read_file';
const writeCallId = 'call_write_file';

function texts(message: ChatMessage): string[] {
  const { content } = message;
  if (typeof content === 'string') return [content];
  return (content ?? []).flatMap((part) => (typeof part.text === 'string' ? [part.text] : []));
}

function offersTool(request: ChatRequest, name: string): boolean {
  return (request.tools ?? []).some((tool) => tool.function?.name === name);
}

/**
 * The scripted answer to one chat request. Everything off the script (session titles,
 * suggestions, memory, summaries) gets plain text, never a tool call.
 */
export function chooseReply(request: ChatRequest, script: OpenAiScript): Reply {
  const last = request.messages?.at(-1);
  const { filePath, content } = script.edit;
  if (last?.role === 'tool' && last.tool_call_id === readCallId) {
    const args = JSON.stringify({ file_path: filePath, content });
    return { kind: 'write_file', call: { id: writeCallId, name: 'write_file', arguments: args } };
  }
  if (last?.role === 'tool' && last.tool_call_id === writeCallId)
    return { kind: 'text', text: finalText };
  // The CLI may put the editor context in front of the user's words, in the same part.
  const isPrompt =
    last?.role === 'user' && texts(last).some((text) => text.trim().endsWith(script.prompt));
  if (isPrompt && offersTool(request, 'read_file') && offersTool(request, 'write_file')) {
    const args = JSON.stringify({ file_path: filePath });
    return { kind: 'read_file', call: { id: readCallId, name: 'read_file', arguments: args } };
  }
  return { kind: 'text', text: idleText };
}

function streamBody(reply: Reply, model: string): string {
  const chunk = (choices: object[], extra: object = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model, choices, ...extra })}\n\n`;
  const delta =
    reply.kind === 'text'
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: reply.call.id,
              type: 'function',
              function: { name: reply.call.name, arguments: reply.call.arguments },
            },
          ],
        };
  const finishReason = reply.kind === 'text' ? 'stop' : 'tool_calls';
  return (
    chunk([{ index: 0, delta, finish_reason: null }]) +
    chunk([{ index: 0, delta: {}, finish_reason: finishReason }]) +
    chunk([], { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) +
    'data: [DONE]\n\n'
  );
}

function completionBody(reply: Reply, model: string): string {
  const message =
    reply.kind === 'text'
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: reply.call.id,
              type: 'function',
              function: { name: reply.call.name, arguments: reply.call.arguments },
            },
          ],
        };
  const finishReason = reply.kind === 'text' ? 'stop' : 'tool_calls';
  return JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message, finish_reason: finishReason }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
}

/** An OpenAI-compatible `/v1/chat/completions` endpoint on 127.0.0.1 that follows a script. */
export class FakeOpenAiModel {
  private constructor(
    private readonly server: FakeModelServer,
    readonly baseUrl: string,
    /** Every reply given, in order: what a failing test prints to show how far the CLI got. */
    readonly replies: Reply['kind'][],
  ) {}

  static async start(script: OpenAiScript): Promise<FakeOpenAiModel> {
    const replies: Reply['kind'][] = [];
    const server = await FakeModelServer.start((path, body) => {
      if (!path.endsWith('/chat/completions')) return undefined;
      return scriptedTurn(body as ChatRequest, (r) => chooseReply(r, script), replies, {
        defaultModel: 'fake',
        stream: streamBody,
        json: completionBody,
      });
    });
    return new FakeOpenAiModel(server, `http://127.0.0.1:${server.port}/v1`, replies);
  }

  /** Safe to call twice. */
  close(): Promise<void> {
    return this.server.close();
  }
}
