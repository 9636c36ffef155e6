import { writeFile } from 'node:fs/promises';
import { finalText, idleText, type ProposedEdit } from './proposed-edit.js';

// Gemini CLI's `--fake-responses-non-strict FILE` reads FILE once at start: one JSON object per
// line, `{method, response}`. Each call of a method takes the first unused line of that method;
// a call with none left fails. Only `generateContentStream` is called on the way to an edit with
// model `gemini-2.5-flash` pinned (no router call, no next-speaker check, no LLM edit fixer).

/** Spare text turns, so prompts a test types after the edit still get an answer. */
const spareTurns = 5;

function modelTurn(part: object): string {
  const response = [
    { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP' }] },
  ];
  return JSON.stringify({ method: 'generateContentStream', response });
}

/** The canned conversation: a `write_file` call, the closing text, then spare text turns. */
export function fakeGeminiResponses(edit: ProposedEdit): string {
  const call = {
    functionCall: { name: 'write_file', args: { file_path: edit.filePath, content: edit.content } },
  };
  const turns = [modelTurn(call), modelTurn({ text: finalText })];
  for (let i = 0; i < spareTurns; i++) turns.push(modelTurn({ text: idleText }));
  return turns.join('\n') + '\n';
}

export async function writeFakeGeminiResponses(file: string, edit: ProposedEdit): Promise<void> {
  await writeFile(file, fakeGeminiResponses(edit));
}
