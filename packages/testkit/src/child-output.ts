import type { ChildProcess } from 'node:child_process';

export interface ChildOutput {
  /** Everything the child wrote so far, stdout and stderr as they came. */
  text(): string;
  /** Resolves with the exit status once the child has ended. */
  exited: Promise<number | null>;
}

/** Collects what `child` (spawned with piped stdout and stderr) prints, and when it ends. */
export function childOutput(child: ChildProcess): ChildOutput {
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { text: () => text, exited };
}
