/**
 * For one test that makes a folder "another user's": that takes `chown`, which only root may do.
 * Whether this process is root; if not, skips the test with the reason, printed (CI runs as root).
 */
export function needsRoot(t: { skip(message?: string): void }): boolean {
  if (process.getuid?.() === 0) return true;
  const reason = 'needs root to give a folder to another user (CI runs as root)';
  console.log(`skipped: ${reason}`);
  t.skip(reason);
  return false;
}
