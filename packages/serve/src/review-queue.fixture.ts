/** Test-only: a review queue whose answers and warnings are recorded, and diffs to show on it. */
import type { DiffRequest } from '@tandem/core';
import { ReviewQueue } from './review-queue.js';

/** A diff as the engine hands it to the queue: `/work/project/<id>.ts`, from `old` to `new`. */
export function diffRequest(id: string, overrides: Partial<DiffRequest> = {}): DiffRequest {
  return {
    id,
    filePath: `/work/project/${id}.ts`,
    oldContent: 'old\n',
    newContent: 'new\n',
    client: { sessionId: 'session-1', name: 'Gemini CLI', version: '0.61.0' },
    ...overrides,
  };
}

/**
 * A queue whose answers are what the engine was told (`accepted <id>: <content>`,
 * `rejected <id>`) and whose log warnings are kept.
 */
export function recordingQueue(): { queue: ReviewQueue; answers: string[]; warnings: string[] } {
  const answers: string[] = [];
  const warnings: string[] = [];
  const queue = new ReviewQueue({ warn: (message) => warnings.push(message) });
  queue.answerTo({
    diffAccepted: (id, content) => (answers.push(`accepted ${id}: ${content}`), { ok: true }),
    diffRejected: (id) => (answers.push(`rejected ${id}`), { ok: true }),
  });
  return { queue, answers, warnings };
}
