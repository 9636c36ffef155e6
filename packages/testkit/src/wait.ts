/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Polls `condition` until it holds; fails after `timeoutMs` with `what` and `details()`. */
export async function waitUntil(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  details: () => string = () => '',
): Promise<void> {
  try {
    await waitFor(what, async () => ((await condition()) ? true : undefined), timeoutMs);
  } catch (error) {
    const more = details();
    throw more ? new Error(`${(error as Error).message}\n${more}`) : error;
  }
}
