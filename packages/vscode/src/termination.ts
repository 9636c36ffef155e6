const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs `cleanup` when this extension host is told to end by a signal (Ctrl+C on the server, a
 * service manager stopping it): VS Code would not call deactivate() then. The signal is raised
 * again afterwards, so the process ends as it would have. Returns a function that removes the
 * handlers.
 */
export function onTerminationSignal(cleanup: () => Promise<void>): () => void {
  const handler = (signal: NodeJS.Signals) => {
    remove();
    void cleanup().finally(() => process.kill(process.pid, signal));
  };
  const remove = () => {
    for (const signal of SIGNALS) process.off(signal, handler);
  };
  for (const signal of SIGNALS) process.once(signal, handler);
  return remove;
}
