import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeOpenAiModel, type OpenAiScript } from './fake-openai-model.js';
import { finalText, idleText } from './proposed-edit.js';

const script: OpenAiScript = {
  prompt: 'Propose the prepared edit of /ws/x.txt',
  edit: { filePath: '/ws/x.txt', content: 'new "text"\n\\n ✓\n' },
};
const tools = ['read_file', 'write_file', 'edit'].map((name) => ({
  type: 'function',
  function: { name },
}));
const promptMessage = {
  role: 'user',
  content: [
    { type: 'text', text: '<system-reminder>skills</system-reminder>' },
    { type: 'text', text: script.prompt },
  ],
};
const readCall = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_read_file', type: 'function', function: { name: 'read_file', arguments: '{}' } },
  ],
};
const readResult = { role: 'tool', tool_call_id: 'call_read_file', content: 'old\n' };
const writeCall = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_write_file', type: 'function', function: { name: 'write_file', arguments: '{}' } },
  ],
};
const writeResult = {
  role: 'tool',
  tool_call_id: 'call_write_file',
  content: 'Successfully overwrote file',
};

interface Answer {
  content: string;
  toolCalls: { id: string; name: string; arguments: unknown }[];
  finishReason: string;
}

/** Reassembles a streamed (SSE) or plain chat completion the way an OpenAI client does. */
async function ask(model: FakeOpenAiModel, body: object, stream = true): Promise<Answer> {
  const response = await fetch(`${model.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-model', stream, ...body }),
  });
  assert.equal(response.status, 200);
  if (!stream) {
    const { choices } = (await response.json()) as {
      choices: {
        message: {
          content: string | null;
          tool_calls?: { id: string; function: { name: string; arguments: string } }[];
        };
        finish_reason: string;
      }[];
    };
    const [{ message, finish_reason }] = choices as [(typeof choices)[number]];
    const toolCalls = (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: JSON.parse(call.function.arguments) as unknown,
    }));
    return { content: message.content ?? '', toolCalls, finishReason: finish_reason };
  }
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = (await response.text()).split('\n\n').filter(Boolean);
  assert.equal(events.at(-1), 'data: [DONE]');
  const answer: Answer = { content: '', toolCalls: [], finishReason: '' };
  for (const event of events.slice(0, -1)) {
    const chunk = JSON.parse(event.replace(/^data: /, '')) as {
      choices: {
        delta: {
          content?: string;
          tool_calls?: {
            index: number;
            id: string;
            function: { name: string; arguments: string };
          }[];
        };
        finish_reason: string | null;
      }[];
    };
    for (const choice of chunk.choices) {
      answer.content += choice.delta.content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        answer.toolCalls[call.index] = {
          id: call.id,
          name: call.function.name,
          arguments: JSON.parse(call.function.arguments) as unknown,
        };
      }
      if (choice.finish_reason) answer.finishReason = choice.finish_reason;
    }
  }
  return answer;
}

async function startModel(t: {
  after: (fn: () => Promise<void>) => void;
}): Promise<FakeOpenAiModel> {
  const model = await FakeOpenAiModel.start(script);
  t.after(() => model.close());
  return model;
}

test('the prompt gets read_file, its result write_file with the exact edit, then the closing text', async (t) => {
  const model = await startModel(t);
  assert.match(model.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);

  const read = await ask(model, {
    tools,
    messages: [{ role: 'system', content: 'sys' }, promptMessage],
  });
  assert.deepEqual(read, {
    content: '',
    finishReason: 'tool_calls',
    toolCalls: [{ id: 'call_read_file', name: 'read_file', arguments: { file_path: '/ws/x.txt' } }],
  });

  const write = await ask(model, { tools, messages: [promptMessage, readCall, readResult] });
  assert.deepEqual(write.toolCalls, [
    {
      id: 'call_write_file',
      name: 'write_file',
      arguments: { file_path: '/ws/x.txt', content: script.edit.content },
    },
  ]);
  assert.equal(write.finishReason, 'tool_calls');

  const done = await ask(model, {
    tools,
    messages: [promptMessage, readCall, readResult, writeCall, writeResult],
  });
  assert.deepEqual(done, { content: finalText, toolCalls: [], finishReason: 'stop' });
  assert.deepEqual(model.replies, ['read_file', 'write_file', 'text']);
});

test('the prompt still counts with editor context in front of it in the same part', async (t) => {
  const model = await startModel(t);
  const withContext = {
    role: 'user',
    content: [
      {
        type: 'text',
        text: `<system-reminder>Active file: /ws/x.txt</system-reminder>\n\n${script.prompt}`,
      },
    ],
  };
  const answer = await ask(model, { tools, messages: [withContext] });
  assert.equal(answer.toolCalls[0]?.name, 'read_file');
});

test('side requests get plain text, never a tool call', async (t) => {
  const model = await startModel(t);
  const suggestion = {
    role: 'user',
    content: [{ type: 'text', text: '[SUGGESTION MODE: Suggest what the user might type next.]' }],
  };
  const transcript = {
    role: 'user',
    content: `Give this conversation a title:\nuser: ${script.prompt}\nassistant: done`,
  };
  const cases = [
    {
      tools,
      messages: [
        promptMessage,
        readCall,
        readResult,
        writeCall,
        writeResult,
        { role: 'assistant', content: finalText },
        suggestion,
      ],
    },
    { messages: [transcript] },
    { messages: [promptMessage] }, // no tools offered: the CLI cannot act on a call
  ];
  for (const body of cases) {
    assert.deepEqual(await ask(model, body), {
      content: idleText,
      toolCalls: [],
      finishReason: 'stop',
    });
    assert.deepEqual(await ask(model, body, false), {
      content: idleText,
      toolCalls: [],
      finishReason: 'stop',
    });
  }
});

test('non-streaming requests follow the same script', async (t) => {
  const model = await startModel(t);
  const answer = await ask(
    model,
    { tools, messages: [promptMessage, readCall, readResult] },
    false,
  );
  assert.deepEqual(answer.toolCalls[0]?.arguments, {
    file_path: '/ws/x.txt',
    content: script.edit.content,
  });
  assert.equal(answer.finishReason, 'tool_calls');
});

test('other endpoints and bad bodies get clear errors; close is safe twice', async () => {
  const model = await FakeOpenAiModel.start(script);
  const notFound = await fetch(`${model.baseUrl}/models`);
  assert.equal(notFound.status, 404);
  assert.match(
    ((await notFound.json()) as { error: { message: string } }).error.message,
    /no such endpoint: GET \/v1\/models/,
  );
  const bad = await fetch(`${model.baseUrl}/chat/completions`, {
    method: 'POST',
    body: '{not json',
  });
  assert.equal(bad.status, 400);
  await bad.text();
  assert.deepEqual(model.replies, []);
  await model.close();
  await model.close();
  await assert.rejects(fetch(`${model.baseUrl}/chat/completions`, { method: 'POST', body: '{}' }));
});
