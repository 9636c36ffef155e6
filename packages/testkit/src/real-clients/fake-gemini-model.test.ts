import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { writeFakeGeminiResponses } from './fake-gemini-model.js';
import { importClientModule } from './installed-clients.js';
import { finalText, idleText } from './proposed-edit.js';

const { FakeContentGenerator, LlmRole } =
  await importClientModule<typeof import('@google/gemini-cli-core')>('@google/gemini-cli-core');

async function collect(generator: InstanceType<typeof FakeContentGenerator>): Promise<unknown[]> {
  const stream = await generator.generateContentStream(
    { model: 'gemini-2.5-flash', contents: [] },
    'prompt-id',
    LlmRole.MAIN,
  );
  const parts: unknown[] = [];
  for await (const response of stream)
    parts.push(...(response.candidates?.[0]?.content?.parts ?? []));
  return parts;
}

test('the canned responses drive the real fake generator of Gemini CLI: write_file, closing text, spares', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fake-gemini-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'responses.jsonl');
  const content = 'a "quoted"\n\\n literal\nünï ✓\n';
  await writeFakeGeminiResponses(file, { filePath: '/ws/x.txt', content });

  const generator = await FakeContentGenerator.fromFile(file, { nonStrict: true });
  assert.deepEqual(await collect(generator), [
    { functionCall: { name: 'write_file', args: { file_path: '/ws/x.txt', content } } },
  ]);
  assert.deepEqual(await collect(generator), [{ text: finalText }]);
  assert.deepEqual(await collect(generator), [{ text: idleText }]);
});
