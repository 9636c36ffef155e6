/**
 * The README's picture of a diff in VS Code: a diff that the real Gemini CLI client proposes, in
 * the diff editor of real VS Code (code-server). `screenshot.test.ts` renders it into a temporary
 * file; `scripts/screenshot.ts` writes docs/images/vscode-diff.png on purpose.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CodeServer,
  codeServerSkipReason as skipReason,
  realClientIn,
  Sandbox,
} from '@tandem/testkit';

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

/** Takes the picture into `out` (a PNG file). */
export async function renderDiffScreenshot(out: string): Promise<void> {
  const reason = skipReason();
  if (reason) throw new Error(reason);
  const sandbox = new Sandbox('tandem-vscode-screenshot-');
  const file = path.join(sandbox.workspace, 'src', 'greeting.ts');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, original);
  const vscode = await CodeServer.start(sandbox);
  // The client looks for the discovery files once, when it starts.
  await vscode.waitForDiscovery();
  const client = await realClientIn(sandbox, 'gemini');
  try {
    await client.connect();
    await vscode.openFile('src/greeting.ts');
    await vscode.waitForClient('Gemini CLI');
    const diff = client.openDiff(file, proposed);
    await diff.opened;
    await vscode.waitForDiff('Gemini CLI');
    await vscode.dismissNotifications();
    // Let the diff's decorations and syntax colours settle before the picture.
    await vscode.page.locator('.monaco-diff-editor .char-insert').first().waitFor();
    await vscode.page.waitForTimeout(1000);
    await vscode.page.screenshot({ path: out });
  } finally {
    await client.kill();
    await vscode.stop();
    sandbox.remove();
  }
}
