/**
 * The README's picture of a diff in VS Code (`@tandem/testkit`'s `DiffScreenshotDriver`): the
 * diff editor of real VS Code (code-server) in Chromium. `screenshot.test.ts` renders it into a
 * temporary file; `render-screenshot.ts` (`npm run screenshots`) into docs/images.
 */
import { CodeServer, codeServerSkipReason, type DiffScreenshotDriver } from '@tandem/testkit';

const FILE = 'src/greeting.ts';

const original = `export interface Greeting {
  name: string;
  punctuation?: string;
}

export function greet({ name, punctuation }: Greeting): string {
  return 'Hello, ' + name + (punctuation ?? '!');
}
`;

const proposed = `export interface Greeting {
  name: string;
  punctuation?: string;
  /** Greets in this language; English by default. */
  language?: 'en' | 'de' | 'fr';
}

const HELLO = { en: 'Hello', de: 'Hallo', fr: 'Bonjour' } as const;

export function greet({ name, punctuation = '!', language = 'en' }: Greeting): string {
  return \`\${HELLO[language]}, \${name}\${punctuation}\`;
}
`;

/** code-server in Chromium, the file open: the window is the picture. */
export const vscodeDiffScreenshot: DiffScreenshotDriver = {
  name: 'VS Code',
  file: FILE,
  before: original,
  after: proposed,
  async start(sandbox) {
    const reason = codeServerSkipReason();
    if (reason) throw new Error(reason);
    const vscode = await CodeServer.start(sandbox);
    try {
      await vscode.waitForDiscovery();
      await vscode.openFile(FILE);
    } catch (error) {
      await vscode.stop();
      throw error;
    }
    return {
      async waitForDiff() {
        await vscode.waitForDiff('Gemini CLI');
        await vscode.waitForClient('Gemini CLI');
        // Let the diff's decorations and syntax colours settle before the picture.
        await vscode.page.locator('.monaco-diff-editor .char-insert').first().waitFor();
        await vscode.page.waitForTimeout(1000);
        // Tandem's warnings about this machine (IDE mode off, a container) are not the picture.
        await vscode.dismissNotifications();
        await vscode.page.locator('.notification-toast').first().waitFor({ state: 'detached' });
      },
      async screenshot(out) {
        await vscode.page.screenshot({ path: out });
      },
      close: () => vscode.stop(),
    };
  },
};
