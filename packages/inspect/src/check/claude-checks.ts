import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute } from 'node:path';
import { CLAUDE_TOKEN_HEADER } from '@tandem/core';
import { predictClaude } from '../doctor/claude-prediction.js';
import { ClaudeCheckClient, tryUpgrade, type UpgradeAnswer } from './claude-check-client.js';
import { fieldsOutcome, outcome, type CheckResult, type CheckRule } from './check-report.js';
import type { CompanionAddress } from './check-client.js';
import { REQUEST_MS } from './transport-checks.js';

/**
 * What Claude Code needs of a companion before any diff (docs/clients.md, "Claude Code"): the
 * lock file it reads, the WebSocket upgrade it makes and the guards a page or another program
 * meets there, `initialize`, the tools it calls and `getDiagnostics`' answer.
 */
export const CLAUDE_RULES = {
  found: {
    id: 'discovery.found',
    title: 'Claude Code finds a live lock file for this folder',
    severity: 'breaks',
    effect:
      'Claude Code works without the editor: `/ide` lists no editor for the folder, `--ide` and CLAUDE_CODE_SSE_PORT connect to nothing.',
    fix: 'Write `<CLAUDE_CONFIG_DIR or ~/.claude>/ide/<port>.lock` whose `workspaceFolders` contain the folder; `tandem doctor --cli claude` names what is missing.',
  },
  fields: {
    id: 'discovery.lock-fields',
    title: 'the lock holds pid, workspaceFolders, ideName and authToken with their types',
    severity: 'breaks',
    effect:
      'Claude Code deletes a lock it cannot read, lists it without a name, or connects without the token and is refused.',
    fix: 'Write `{"pid": <editor pid>, "workspaceFolders": [<absolute folders>], "ideName": "<Editor>", "transport": "ws", "authToken": "<token>", "runningInWindows": false}`.',
  },
  pid: {
    id: 'discovery.lock-pid',
    title: "the lock's pid is a running process",
    severity: 'breaks',
    effect: 'Claude Code deletes a lock whose pid is not running, then finds no editor.',
    fix: "Write the editor's own PID (a process that lives as long as the companion) as `pid`.",
  },
  transport: {
    id: 'discovery.lock-transport',
    title: 'the lock says transport "ws"',
    severity: 'breaks',
    effect: 'Claude Code speaks the transport the lock names: with any other it never connects.',
    fix: 'Write `"transport": "ws"` and serve a WebSocket.',
  },
  private: {
    id: 'discovery.private',
    title: 'the lock is 0600 in a 0700 folder',
    severity: 'unsafe',
    effect:
      'Any user of the machine can read the token (or swap the lock) and drive the editor: open diffs, read the selection.',
    fix: 'Create the lock with mode 0600 (exclusively, then rename it into place) in an `ide` folder of mode 0700.',
  },
  upgrade: {
    id: 'transport.upgrade',
    title: 'the upgrade with the token is answered 101 with subprotocol mcp',
    severity: 'breaks',
    effect:
      'Claude Code\'s WebSocket does not open: it shows "<ideName> disconnected" and asks for every edit in its terminal alone. 2.1.332 refuses a 101 that does not name `mcp` too (2.1.110 connects all the same).',
    fix: 'Accept `GET /` upgrades on 127.0.0.1 that offer subprotocol `mcp` and answer with `Sec-WebSocket-Protocol: mcp`.',
  },
  noToken: {
    id: 'security.no-token',
    title: 'an upgrade without the token is refused',
    severity: 'unsafe',
    effect:
      'Any program on the machine can connect as Claude Code: open diffs in the editor and read the selection.',
    fix: `Answer 401 to an upgrade without \`${CLAUDE_TOKEN_HEADER}\` equal to the lock's \`authToken\`.`,
  },
  wrongToken: {
    id: 'security.wrong-token',
    title: 'an upgrade with a wrong token is refused',
    severity: 'unsafe',
    effect: 'Any program on the machine can connect by guessing nothing.',
    fix: 'Compare the token with the one in the lock, in constant time; refuse any other.',
  },
  origin: {
    id: 'security.origin',
    title: 'an upgrade with an Origin header is refused',
    severity: 'unsafe',
    effect:
      'Claude Code never sends Origin: an upgrade that carries one comes from a web page, which can then drive the editor (the class of CVE-2025-52882).',
    fix: 'Refuse every upgrade that carries an `Origin` header, before the token is checked.',
  },
  host: {
    id: 'security.host',
    title: 'an upgrade with a foreign Host header is refused',
    severity: 'unsafe',
    effect: 'A web page can reach the companion through DNS rebinding.',
    fix: 'Accept only `Host: 127.0.0.1:<port>` and `localhost:<port>`.',
  },
  survives: {
    id: 'security.still-serving',
    title: 'the companion still serves Claude Code after the refused upgrades',
    severity: 'breaks',
    effect: 'Claude Code cannot connect (or reconnect): it works without the editor.',
    fix: 'Never let a refused upgrade end the listener.',
  },
  initialize: {
    id: 'transport.initialize',
    title: 'initialize with protocol version 2025-11-25 is answered',
    severity: 'breaks',
    effect:
      "Claude Code's MCP client cannot connect: it works without the editor, each diff in its terminal only.",
    fix: 'Serve MCP over the WebSocket (one JSON-RPC message a text frame) and answer `initialize`.',
  },
  tools: {
    id: 'transport.tools',
    title: 'tools/list names openDiff, close_tab and getDiagnostics',
    severity: 'breaks',
    effect:
      'Without openDiff Claude Code shows its diffs in the terminal only; without close_tab a diff answered in the terminal stays open in the editor; without getDiagnostics the model gets no diagnostics.',
    fix: 'Register the three tools on every connection (and `closeAllDiffTabs`, which it calls at each prompt).',
  },
  diagnostics: {
    id: 'transport.diagnostics',
    title: 'getDiagnostics answers a JSON list of {uri, diagnostics}',
    severity: 'breaks',
    effect:
      'Claude Code parses the first text as JSON: anything else fails its call, and the model is told the tool failed.',
    fix: 'Answer one text part, `JSON.stringify([{uri, diagnostics: [...]}, ...])`; `[]` when there are none.',
  },
} satisfies Record<string, CheckRule>;

export interface ClaudeLockFindings {
  checks: CheckResult[];
  /** The companion Claude Code would use from the folder, with the lock's token. */
  target?: CompanionAddress & { file: string; ideName?: string };
}

/** The lock Claude Code would take from `dir`, and whether it holds what the binary reads. */
export async function checkClaudeLock(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<ClaudeLockFindings> {
  const prediction = await predictClaude(dir, env);
  const checks = [outcome(CLAUDE_RULES.found, prediction.connection !== 'none', prediction.choice)];
  // The lock it uses, else the folder's lock it deletes: that one says why.
  const lock =
    prediction.locks.find((l) => l.port === prediction.port) ??
    prediction.locks.find((l) => l.port === prediction.listed[0]) ??
    prediction.locks.find((l) => l.containsFolder);
  if (!lock) {
    checks[0]!.detail += ` (looked in ${prediction.lockFolders.join(' and ')})`;
    return { checks };
  }
  const name = basename(lock.path);
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(await readFile(lock.path, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      data = parsed as Record<string, unknown>;
    }
  } catch {
    // Judged below as missing fields.
  }
  const problems = [
    Number.isInteger(data.pid) && (data.pid as number) > 0
      ? undefined
      : `pid ${JSON.stringify(data.pid)}`,
    Array.isArray(data.workspaceFolders) &&
    data.workspaceFolders.every((f) => typeof f === 'string' && isAbsolute(f))
      ? undefined
      : `workspaceFolders ${JSON.stringify(data.workspaceFolders)}`,
    typeof data.ideName === 'string' && data.ideName !== ''
      ? undefined
      : `ideName ${JSON.stringify(data.ideName)}`,
    typeof data.authToken === 'string' && data.authToken !== ''
      ? undefined
      : `authToken ${JSON.stringify(data.authToken)}`,
  ];
  checks.push(
    fieldsOutcome(CLAUDE_RULES.fields, name, problems),
    outcome(
      CLAUDE_RULES.pid,
      lock.alive,
      lock.pid === undefined
        ? `${name}: no pid`
        : `${name}: pid ${lock.pid} ${lock.alive ? 'running' : 'is not running'}`,
    ),
    outcome(
      CLAUDE_RULES.transport,
      data.transport === 'ws',
      `${name}: transport ${JSON.stringify(data.transport)}`,
    ),
    await privacy(lock.path),
  );
  const token = typeof data.authToken === 'string' ? data.authToken : undefined;
  return {
    checks,
    target: {
      port: lock.port,
      file: lock.path,
      ...(token && { token }),
      ...(lock.ideName && { ideName: lock.ideName }),
    },
  };
}

async function privacy(path: string): Promise<CheckResult> {
  const [fileMode, dirMode] = await Promise.all([
    stat(path).then((s) => s.mode & 0o777),
    stat(dirname(path)).then((s) => s.mode & 0o777),
  ]).catch(() => [undefined, undefined]);
  const octal = (mode: number | undefined) => (mode === undefined ? '?' : mode.toString(8));
  const closed = (mode: number | undefined) => mode !== undefined && (mode & 0o077) === 0;
  return outcome(
    CLAUDE_RULES.private,
    closed(fileMode) && closed(dirMode),
    `${basename(path)}: mode ${octal(fileMode)}, folder ${octal(dirMode)}`,
  );
}

/** The upgrade as Claude Code makes it, and as a page or another program would. */
export async function checkClaudeUpgrade(address: CompanionAddress): Promise<{
  security: CheckResult[];
  transport: CheckResult[];
}> {
  const { port, token = '' } = address;
  const auth = { [CLAUDE_TOKEN_HEADER]: token };
  const good = await tryUpgrade(port, auth);
  const transport = [
    outcome(
      CLAUDE_RULES.upgrade,
      good.status === 101 && good.protocol === 'mcp',
      good.status === 101
        ? `HTTP 101, subprotocol ${good.protocol === undefined ? 'none' : JSON.stringify(good.protocol)}`
        : answered(good),
    ),
  ];
  const refused = (answer: UpgradeAnswer) => answer.status !== 101;
  const noToken = await tryUpgrade(port, {});
  const wrongToken = await tryUpgrade(port, { [CLAUDE_TOKEN_HEADER]: `${token}x` });
  const origin = await tryUpgrade(port, { ...auth, origin: 'http://attacker.example' });
  const host = await tryUpgrade(port, { ...auth, host: `attacker.example:${port}` });
  const security = [
    outcome(CLAUDE_RULES.noToken, refused(noToken), answered(noToken)),
    outcome(CLAUDE_RULES.wrongToken, refused(wrongToken), answered(wrongToken)),
    outcome(CLAUDE_RULES.origin, refused(origin), answered(origin)),
    outcome(CLAUDE_RULES.host, refused(host), answered(host)),
  ];
  const again = await tryUpgrade(port, auth);
  security.push(outcome(CLAUDE_RULES.survives, again.status === 101, answered(again)));
  return { security, transport };
}

function answered(answer: UpgradeAnswer): string {
  if (answer.status === undefined) return `no answer (${answer.error})`;
  return answer.status === 101 ? 'accepted (HTTP 101)' : `refused (HTTP ${answer.status})`;
}

/** `initialize`, `tools/list` and `getDiagnostics`, on a connection made as Claude Code's. */
export async function checkClaudeSession(address: CompanionAddress): Promise<CheckResult[]> {
  let client: ClaudeCheckClient;
  try {
    client = await ClaudeCheckClient.open(address.port, address.token);
  } catch (error) {
    return [outcome(CLAUDE_RULES.initialize, false, `no connection: ${(error as Error).message}`)];
  }
  try {
    const init = await client.initialize(REQUEST_MS).catch((error: Error) => error);
    const version =
      init instanceof Error ? undefined : (init.result?.protocolVersion as string | undefined);
    const checks = [
      outcome(
        CLAUDE_RULES.initialize,
        !(init instanceof Error) && init.result !== undefined,
        init instanceof Error
          ? init.message
          : init.error
            ? `error: ${init.error.message}`
            : `answered ${version ?? '?'}`,
      ),
    ];
    if (init instanceof Error || !init.result) return checks;
    const listed = await client.request('tools/list', {}, REQUEST_MS).catch(() => undefined);
    const names = Array.isArray(listed?.result?.tools)
      ? (listed.result.tools as { name?: unknown }[]).map((tool) => String(tool.name))
      : [];
    const lacking = ['openDiff', 'close_tab', 'getDiagnostics'].filter((n) => !names.includes(n));
    checks.push(
      outcome(
        CLAUDE_RULES.tools,
        lacking.length === 0,
        lacking.length === 0
          ? names.join(', ')
          : `no ${lacking.join(', ')} (has ${names.join(', ') || 'none'})`,
      ),
    );
    if (names.includes('getDiagnostics')) checks.push(await diagnosticsCheck(client));
    return checks;
  } finally {
    await client.close();
  }
}

async function diagnosticsCheck(client: ClaudeCheckClient): Promise<CheckResult> {
  const answer = await client.callTool('getDiagnostics', {}, REQUEST_MS).catch((e: Error) => e);
  if (answer instanceof Error) return outcome(CLAUDE_RULES.diagnostics, false, answer.message);
  if (answer.error || answer.isError) {
    return outcome(
      CLAUDE_RULES.diagnostics,
      false,
      `an error: ${answer.error ?? answer.texts.join(' ')}`,
    );
  }
  const text = answer.texts[0] ?? '';
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return outcome(
      CLAUDE_RULES.diagnostics,
      false,
      `not JSON: ${JSON.stringify(text.slice(0, 60))}`,
    );
  }
  const valid =
    Array.isArray(list) &&
    list.every(
      (item: { uri?: unknown; diagnostics?: unknown }) =>
        typeof item?.uri === 'string' && Array.isArray(item.diagnostics),
    );
  return outcome(
    CLAUDE_RULES.diagnostics,
    valid,
    valid
      ? `${(list as unknown[]).length} file(s)`
      : `not a list of {uri, diagnostics}: ${text.slice(0, 60)}`,
  );
}
