const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Past this, a stop that hangs (a wedged file system, a peer that never answers) is cut short. */
const STOP_DEADLINE_MS = 5_000;

/**
 * How every long-running `tandem` command (`bridge`, `serve`) lives and ends, written once:
 * - SIGINT, SIGTERM and SIGHUP ask it to stop; so may the command itself (its editor closed
 *   stdin, or sent `shutdown`). It then cleans up once — open diffs rejected, discovery files
 *   removed — and exits **0**: a stop that was asked for and done is a success.
 * - An uncaught error also stops it, after the same cleanup, with status **1**.
 * - A second signal, or a cleanup still running after 5 s, ends the process at once.
 * Usage errors are status 2, answered before a host exists (`withUsage`).
 */
export class ProcessHost {
  /** Resolves, with why, when a signal or a fatal error asks the command to stop. */
  readonly stopRequested: Promise<string>;
  private failed = false;
  private requested = false;
  private resolveStop!: (reason: string) => void;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    if (this.requested) {
      this.report(`${signal} again: exiting without waiting for the cleanup`);
      process.exit(this.exitStatus || 1);
    }
    this.request(signal);
  };
  private readonly onFatal = (error: unknown) => {
    this.failed = true;
    this.report(
      `fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    this.request('a fatal error');
  };

  constructor(private readonly report: (message: string) => void) {
    this.stopRequested = new Promise((resolve) => (this.resolveStop = resolve));
    for (const signal of STOP_SIGNALS) process.on(signal, this.onSignal);
    process.on('uncaughtException', this.onFatal);
    process.on('unhandledRejection', this.onFatal);
  }

  /** The exit status of a command that has stopped: 1 after a fatal error, else 0. */
  get exitStatus(): number {
    return this.failed ? 1 : 0;
  }

  /**
   * Asks for a stop: a signal, or the command's own reason (its editor sent `shutdown`, closed
   * stdin). Only the first counts; from it on, the cleanup has 5 s.
   */
  request(reason: string): void {
    if (this.requested) return;
    this.requested = true;
    this.endWithin(STOP_DEADLINE_MS);
    this.resolveStop(reason);
  }

  /**
   * The deadline alone, for a stop the command carries out itself and states a time for
   * (`tandem lsp`: its stop after `exit` is not a stop request, and has 1.5 s): the process
   * ends, status 1, if it still runs `ms` from now. The earliest deadline holds.
   */
  endWithin(ms: number): void {
    setTimeout(() => {
      this.report(`the cleanup did not finish within ${ms / 1000} s: exiting`);
      process.exit(1);
    }, ms).unref();
  }

  /** Gives the signals and errors back to Node once the command has cleaned up. */
  dispose(): void {
    for (const signal of STOP_SIGNALS) process.off(signal, this.onSignal);
    process.off('uncaughtException', this.onFatal);
    process.off('unhandledRejection', this.onFatal);
  }
}
