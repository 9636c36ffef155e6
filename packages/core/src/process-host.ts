const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * For a process that hosts an engine: runs `cleanup` once on SIGINT, SIGTERM, SIGHUP or a fatal
 * error, then exits. Returns a function that removes the handlers again.
 */
export function onProcessExit(
  cleanup: () => Promise<void>,
  report: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): () => void {
  let running: Promise<void> | undefined;
  const exitAfterCleanup = (code: number) => {
    running ??= cleanup()
      .catch((error: unknown) => report(`cleanup failed: ${String(error)}`))
      .finally(() => process.exit(code));
  };
  const onSignal = (signal: keyof typeof SIGNAL_EXIT_CODES) =>
    exitAfterCleanup(SIGNAL_EXIT_CODES[signal]);
  const onFatal = (error: unknown) => {
    report(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    exitAfterCleanup(1);
  };
  const signals = Object.keys(SIGNAL_EXIT_CODES) as (keyof typeof SIGNAL_EXIT_CODES)[];
  for (const signal of signals) process.on(signal, onSignal);
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('uncaughtException', onFatal);
    process.off('unhandledRejection', onFatal);
  };
}
