import { Sandbox, realClientIn } from '@tandem/testkit';
import { CodeServer } from './code-server.js';
const sandbox = new Sandbox('tandem-vscode-dbg-');
const vscode = await CodeServer.start(sandbox);
try {
  await vscode.waitForDiscovery();
  console.log('status:', JSON.stringify(await vscode.statusText().catch((e) => String(e))));
  const c = await realClientIn(sandbox, 'gemini');
  console.log(await c.connect());
  await new Promise((r) => setTimeout(r, 2000));
  console.log('status:', JSON.stringify(await vscode.statusText().catch((e) => String(e))));
  console.log(await vscode.page.locator('.statusbar').innerHTML().then(h => h.match(/id="[^"]*tandem[^"]*"/g)));
  await vscode.runCommand('Terminal: Create New Terminal');
  await new Promise((r) => setTimeout(r, 5000));
  console.log('terminal:', JSON.stringify(await vscode.terminalText()));
  console.log((await vscode.page.locator('.terminal-wrapper').count()), await vscode.page.locator('.xterm-rows').count());
  await vscode.page.screenshot({ path: '/tmp/cstry/dbg.png' });
  await c.kill();
} finally {
  await vscode.stop();
  sandbox.remove();
}
