import { createInterface } from 'node:readline';
import { printable, type CommandIO } from '@tandem/command';

/**
 * The person at the editor, in `--interactive`: each step is asked on stderr, with its time
 * limit, and its answer is awaited in the editor (or, for "press Enter", on stdin).
 */
export class Person {
  private readonly lines: string[] = [];
  private readonly waiting: (() => void)[] = [];
  private readonly input;

  constructor(
    private readonly io: CommandIO,
    readonly limitMs: number,
  ) {
    this.input = createInterface({ input: io.stdin });
    this.input.on('line', (line) => {
      this.lines.push(line);
      this.waiting.splice(0).forEach((wake) => wake());
    });
  }

  /** Stops reading stdin, so that it does not keep the command alive. */
  close(): void {
    this.input.close();
  }

  /** Writes one step: `tandem check ▸ KEY (n/total): TEXT (within N s)`. */
  ask(key: string, step: number, total: number, text: string): void {
    const seconds = Math.round(this.limitMs / 1000);
    this.io.stderr.write(
      `tandem check ▸ ${key} (${step}/${total}): ${printable(text)} (within ${seconds} s)\n`,
    );
  }

  /** Waits for a line on stdin; false when the time limit passed first. */
  async enter(): Promise<boolean> {
    if (this.lines.shift() !== undefined) return true;
    const timer = new Promise<false>((resolve) => {
      const t = setTimeout(() => resolve(false), this.limitMs);
      t.unref();
    });
    const line = new Promise<true>((resolve) => this.waiting.push(() => resolve(true)));
    const got = await Promise.race([line, timer]);
    if (got) this.lines.shift();
    return got;
  }

  say(text: string): void {
    this.io.stderr.write(`tandem check: ${printable(text)}\n`);
  }
}
