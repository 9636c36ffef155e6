/** Debian's Chromium, driven by playwright-core, for the tests of the review page. */
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Why the browser tests cannot run here, or undefined when they can. Under CI a missing
 * browser is a failure, not a reason to skip.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `${CHROMIUM} is not installed`;
  if (process.env.CI) throw new Error(`CI: ${reason}; the review page tests need it`);
  console.log(`# skipping the review page tests: ${reason}`);
  return reason;
}

/** A headless browser with a fresh profile in `profileDir`. */
export function launchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1440, height: 860 },
  });
}
