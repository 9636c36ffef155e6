/**
 * Paces context updates: the first change after a quiet moment leaves at once (on the next turn
 * of the event loop, so that the events of one editor action travel together); changes during
 * the following window are coalesced into one trailing update. At most one update per window.
 */
export class UpdatePacer {
  private window: NodeJS.Timeout | undefined;
  private leading: NodeJS.Immediate | undefined;
  private changedInWindow = false;
  private stopped = false;

  constructor(
    private readonly send: () => void,
    private readonly windowMs: number,
  ) {}

  changed(): void {
    if (this.stopped || this.leading) return;
    if (this.window) {
      this.changedInWindow = true;
      return;
    }
    this.leading = setImmediate(() => {
      this.leading = undefined;
      this.flush();
    });
  }

  stop(): void {
    this.stopped = true;
    clearImmediate(this.leading);
    clearTimeout(this.window);
  }

  private flush(): void {
    if (this.stopped) return;
    this.changedInWindow = false;
    this.send();
    this.window = setTimeout(() => {
      this.window = undefined;
      if (this.changedInWindow) this.flush();
    }, this.windowMs);
  }
}
