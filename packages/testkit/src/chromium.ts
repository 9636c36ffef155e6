/**
 * Debian's Chromium, driven by playwright-core: the one way every test and picture of Tandem
 * starts a browser.
 */
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
  if (process.env.CI) throw new Error(`CI: ${reason}; the browser tests need it`);
  console.log(`# skipping the browser tests: ${reason}`);
  return reason;
}

export interface ChromiumOptions {
  /** Device pixels per CSS pixel: 2 for pictures as sharp as on a high-density screen. */
  deviceScaleFactor?: number;
}

/** A headless browser with a fresh profile in `profileDir`. */
export function launchChromium(
  profileDir: string,
  options: ChromiumOptions = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1440, height: 860 },
    deviceScaleFactor: options.deviceScaleFactor,
  });
}
