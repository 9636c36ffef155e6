import type { AnswerResult } from './review-api.js';

const retryMilliseconds = 3000;

export type DraftState = 'editing' | 'saving' | 'saved' | 'failed';

/**
 * Keeps the server's copy of one draft up to date: a short while after the last edit, one
 * request at a time, so that an older text never overwrites a newer one.
 */
export class DraftSync {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dirty = false;
  private sending: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly read: () => string,
    private readonly save: (content: string) => Promise<AnswerResult>,
    private readonly onState: (state: DraftState) => void,
    private readonly delayMilliseconds = 250,
  ) {}

  changed(): void {
    if (this.stopped) return;
    this.dirty = true;
    this.onState('editing');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.delayMilliseconds);
  }

  /** Sends what is not sent yet, now. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    while (this.sending) await this.sending;
    if (!this.dirty) return;
    this.dirty = false;
    this.onState('saving');
    this.sending = this.send();
    await this.sending;
  }

  private async send(): Promise<void> {
    const result = await this.save(this.read());
    this.sending = undefined;
    // A failed save is tried again a little later; a diff that is gone needs none.
    if (result === 'failed' && !this.stopped) {
      this.dirty = true;
      this.onState('failed');
      this.timer = setTimeout(() => void this.flush(), retryMilliseconds);
    } else if (!this.dirty) {
      this.onState('saved');
    }
  }

  /** Stops sending: the diff was answered or closed. */
  stop(): void {
    clearTimeout(this.timer);
    this.stopped = true;
    this.dirty = false;
  }
}
