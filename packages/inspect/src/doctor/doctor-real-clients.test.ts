/**
 * The judge of `tandem doctor`: for each case, doctor's prediction — does the CLI connect, to
 * which port, and if not, what does it say — must be what the real IdeClient of Gemini CLI
 * 0.61 / Qwen Code 0.24 then does from the same folder with the same environment.
 */
import assert from 'node:assert/strict';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Engine } from '@tandem/core';
import {
  clientEnvironment,
  startRealClient,
  type ClientKind,
  type RealClient,
} from '@tandem/testkit';
import { closedPort, deadPid, runCommand, TestScene } from '../scan/test-scene.fixture.js';
import type { ClientReport, DoctorReport } from './doctor-report.js';
import { doctorCommand } from './doctor-command.js';

/**
 * What the case is about: the engine the CLI must reach (or one of several, when the choice
 * rests on the random ports in the file names), no connection, or a failure of the CLI's own
 * discovery code.
 */
type Expected = Engine | Engine[] | 'no connection' | 'crash';

interface Setup {
  cwd: string;
  env?: Record<string, string | undefined>;
  expect: Expected;
}

interface Case {
  name: string;
  clients?: ClientKind[];
  setup(scene: TestScene, kind: ClientKind): Promise<Setup>;
}

const IDE_INFO = { name: 'neovim', displayName: 'Neovim' };

/** The folder `ws`, and an engine on it whose files no CLI finds (to borrow its port and token). */
async function hiddenEngine(scene: TestScene): Promise<{ ws: string; engine: Engine }> {
  const ws = scene.folder('ws');
  return { ws, engine: await scene.startEngine([ws], { hidden: true }) };
}

/** A discovery file's fields, written where a client looks (`writeFileFor` by default). */
type Fields = { port: number } & Record<string, unknown>;
type Write = (scene: TestScene, kind: ClientKind, fields: Fields) => void;

/**
 * A case of one discovery file holding `fields` with the port and token of a hidden engine on
 * `ws`; the CLI runs in `ws` and `outcome` is expected ('connects': to that engine).
 */
function oneFile(
  fields: (scene: TestScene, engine: Engine, ws: string) => Fields,
  outcome: 'connects' | 'no connection' | 'crash' = 'no connection',
  {
    env,
    write = (scene, kind, data) => scene.writeFileFor(kind, data),
  }: {
    env?: Setup['env'];
    write?: Write;
  } = {},
): Case['setup'] {
  return async (scene, kind) => {
    const { ws, engine } = await hiddenEngine(scene);
    write(scene, kind, fields(scene, engine, ws));
    return { cwd: ws, env, expect: outcome === 'connects' ? engine : outcome };
  };
}

/** A folder, and a symbolic link to it. */
function linkedFolder(scene: TestScene): { real: string; link: string } {
  const real = scene.folder('real');
  const link = join(scene.root, 'link');
  symlinkSync(real, link);
  return { real, link };
}

const CASES: Case[] = [
  {
    name: 'the folder is the workspace',
    async setup(scene) {
      const ws = scene.folder('ws');
      return { cwd: ws, expect: await scene.startEngine([ws]) };
    },
  },
  {
    name: 'a subfolder of the workspace',
    async setup(scene) {
      const ws = scene.folder('ws');
      return { cwd: scene.folder('ws/src/deep'), expect: await scene.startEngine([ws]) };
    },
  },
  {
    name: 'another folder: directory mismatch',
    async setup(scene) {
      await scene.startEngine([scene.folder('ws')]);
      return { cwd: scene.folder('elsewhere'), expect: 'no connection' };
    },
  },
  {
    name: 'the editor opened the folder through a symbolic link',
    async setup(scene) {
      const { real, link } = linkedFolder(scene);
      return { cwd: real, expect: await scene.startEngine([link]) };
    },
  },
  {
    name: 'the CLI starts in the folder through a symbolic link',
    async setup(scene) {
      const { real, link } = linkedFolder(scene);
      return { cwd: link, expect: await scene.startEngine([real]) };
    },
  },
  {
    name: 'several roots, the folder in the second',
    async setup(scene) {
      const second = scene.folder('second');
      return {
        cwd: second,
        expect: await scene.startEngine([scene.folder('first'), second]),
      };
    },
  },
  {
    name: 'the editor has no folder open',
    async setup(scene) {
      await scene.startEngine([]);
      return { cwd: scene.folder('ws'), expect: 'no connection' };
    },
  },
  {
    name: 'two editors on one folder, no port variable',
    async setup(scene, kind) {
      const ws = scene.folder('ws');
      const first = await scene.startEngine([ws]);
      const second = await scene.startEngine([ws]);
      // Gemini CLI: both files carry the same PID, so the order of their names decides; Qwen
      // Code: the newest lock.
      return { cwd: ws, expect: kind === 'qwen' ? second : [first, second] };
    },
  },
  {
    name: 'two editors on one folder, named after different running PIDs',
    clients: ['gemini'],
    async setup(scene) {
      const ws = scene.folder('ws');
      const [low, high] = [process.ppid, process.pid].sort((a, b) => a - b) as [number, number];
      await scene.startEngine([ws], { geminiIdePid: high });
      await scene.startEngine([ws], { geminiIdePid: low });
      // Gemini CLI orders running PIDs highest first.
      return { cwd: ws, expect: scene.engines[0] as Engine };
    },
  },
  {
    name: 'two editors on one folder, the port variable names the older',
    async setup(scene, kind) {
      const ws = scene.folder('ws');
      const first = await scene.startEngine([ws]);
      await scene.startEngine([ws]);
      const variable =
        kind === 'gemini' ? 'GEMINI_CLI_IDE_SERVER_PORT' : 'QWEN_CODE_IDE_SERVER_PORT';
      return { cwd: ws, env: { [variable]: String(first.port) }, expect: first };
    },
  },
  {
    name: 'the port variable names an editor of another folder',
    async setup(scene, kind) {
      const other = await scene.startEngine([scene.folder('other')]);
      const ws = scene.folder('ws');
      const mine = await scene.startEngine([ws]);
      const variable =
        kind === 'gemini' ? 'GEMINI_CLI_IDE_SERVER_PORT' : 'QWEN_CODE_IDE_SERVER_PORT';
      return { cwd: ws, env: { [variable]: String(other.port) }, expect: mine };
    },
  },
  {
    name: 'a nested editor: two workspaces contain the folder',
    async setup(scene) {
      const outer = scene.folder('ws');
      const inner = scene.folder('ws/pkg');
      const innerEngine = await scene.startEngine([inner]);
      const outerEngine = await scene.startEngine([outer]);
      return { cwd: inner, expect: [innerEngine, outerEngine] };
    },
  },
  {
    name: 'a stale file of a dead editor beside a live one',
    async setup(scene, kind) {
      const ws = scene.folder('ws');
      const live = await scene.startEngine([ws]);
      const pid = await deadPid();
      const port = await closedPort();
      const stale = { port, workspacePath: ws, authToken: 'stale', ideInfo: IDE_INFO, ppid: pid };
      scene.writeFileFor(kind, stale, pid);
      return { cwd: ws, expect: live };
    },
  },
  {
    name: 'only a stale file of a dead editor',
    async setup(scene, kind) {
      const ws = scene.folder('ws');
      const pid = await deadPid();
      const port = await closedPort();
      const stale = { port, workspacePath: ws, authToken: 'stale', ideInfo: IDE_INFO, ppid: pid };
      scene.writeFileFor(kind, stale, pid);
      return { cwd: ws, expect: 'no connection' };
    },
  },
  {
    name: 'a stale file named after the IDE PID beats a live editor',
    clients: ['gemini'],
    async setup(scene) {
      const ws = scene.folder('ws');
      await scene.startEngine([ws]);
      const pid = await deadPid();
      const port = await closedPort();
      scene.writeDiscoveryFile(
        'gemini',
        { pid, port },
        {
          port,
          workspacePath: ws,
          authToken: 'stale',
          ideInfo: IDE_INFO,
        },
      );
      return { cwd: ws, env: { GEMINI_CLI_IDE_PID: String(pid) }, expect: 'no connection' };
    },
  },
  {
    name: 'a wrong token',
    setup: oneFile((_scene, engine, ws) => ({
      port: engine.port,
      workspacePath: ws,
      authToken: 'wrong',
      ideInfo: IDE_INFO,
    })),
  },
  {
    name: 'a newer lock with a wrong token: Qwen Code falls back to the older one',
    clients: ['qwen'],
    async setup(scene) {
      const ws = scene.folder('ws');
      const good = await scene.startEngine([ws], { hidden: true });
      const other = await scene.startEngine([ws], { hidden: true });
      const common = { workspacePath: ws, ideInfo: IDE_INFO, ppid: process.pid };
      scene.writeDiscoveryFile(
        'qwen-lock',
        { port: good.port },
        { ...common, port: good.port, authToken: scene.tokenOf(good) },
        60_000,
      );
      scene.writeDiscoveryFile(
        'qwen-lock',
        { port: other.port },
        { ...common, port: other.port, authToken: 'wrong' },
      );
      return { cwd: ws, expect: good };
    },
  },
  {
    name: 'a file without ideInfo',
    setup: oneFile((scene, engine, ws) => scene.fieldsFor(engine, ws)),
  },
  {
    name: 'a file without ideInfo, TERM_PROGRAM=vscode',
    setup: oneFile((scene, engine, ws) => scene.fieldsFor(engine, ws), 'connects', {
      env: { TERM_PROGRAM: 'vscode' },
    }),
  },
  {
    name: "an older companion's file named after the IDE PID",
    clients: ['gemini'],
    setup: oneFile(
      (scene, engine, ws) => ({ ...scene.fieldsFor(engine, ws), ideInfo: IDE_INFO }),
      'connects',
      {
        env: { GEMINI_CLI_IDE_PID: String(process.pid) },
        write: (scene, _kind, fields) =>
          scene.writeDiscoveryFile('gemini-pid', { pid: process.pid }, fields),
      },
    ),
  },
  {
    name: 'a lock without ppid whose workspace is gone',
    clients: ['qwen'],
    setup: oneFile(
      (scene, engine) => ({
        ...scene.fieldsFor(engine, join(scene.root, 'removed')),
        ideInfo: IDE_INFO,
      }),
      'no connection',
      {
        write: (scene, _kind, fields) =>
          scene.writeDiscoveryFile('qwen-lock', { port: fields.port }, fields),
      },
    ),
  },
  {
    name: 'a discovery file whose workspacePath is not a string',
    setup: oneFile(
      (scene, engine, ws) => ({
        ...scene.fieldsFor(engine, ws),
        workspacePath: [ws],
        ideInfo: IDE_INFO,
      }),
      'crash',
    ),
  },
  {
    name: 'in a container without a local-setup variable',
    clients: ['gemini'],
    async setup(scene) {
      const ws = scene.folder('ws');
      const engine = await scene.startEngine([ws]);
      const inContainer = existsSync('/.dockerenv') || existsSync('/run/.containerenv');
      return {
        cwd: ws,
        env: { REMOTE_CONTAINERS: undefined },
        expect: inContainer ? 'no connection' : engine,
      };
    },
  },
  {
    name: 'no editor at all',
    async setup(scene) {
      return { cwd: scene.folder('ws'), expect: 'no connection' };
    },
  },
];

describe('tandem doctor predicts what the real clients do', () => {
  for (const kase of CASES) {
    for (const kind of kase.clients ?? (['gemini', 'qwen'] as const)) {
      test(`${kind}: ${kase.name}`, async () => {
        const scene = new TestScene();
        let client: RealClient | undefined;
        try {
          scene.enableIdeMode();
          const setup = await kase.setup(scene, kind);
          const env = setup.env ?? {};
          const report = await runDoctor(kind, scene, setup.cwd, env);
          const predicted = report.clients[0] as ClientReport;
          const locks = lockFiles(report);
          let startError: unknown;
          try {
            client = await startRealClient({
              kind,
              cwd: setup.cwd,
              tmpDir: scene.tmpDir,
              qwenHome: scene.qwenHome,
              home: scene.home,
              env,
            });
          } catch (error) {
            startError = error;
          }
          const context = `doctor said: ${JSON.stringify(summary(predicted))}`;
          if (setup.expect === 'crash') {
            assert.ok(predicted.crash, `doctor should foresee the failure; ${context}`);
            assert.ok(startError, `the real client should fail to start; ${context}`);
            return;
          }
          assert.equal(predicted.crash, undefined, context);
          if (startError) throw startError;
          assert.ok(client);
          assert.deepEqual(
            client.detectedIde ?? null,
            predicted.detectedIde
              ? { name: predicted.detectedIde.name, displayName: predicted.detectedIde.displayName }
              : null,
            `detected IDE; ${context}`,
          );
          const state = await client.connect();
          const reached = scene.connectedPorts();
          const actual = `the client said ${JSON.stringify(state)}, reached ${JSON.stringify(reached)}`;
          assert.equal(state.status === 'connected', predicted.connected, `${actual}; ${context}`);
          if (predicted.connected) {
            assert.deepEqual(reached, [predicted.port], `${actual}; ${context}`);
            assert.equal(state.diffingEnabled, predicted.diffing, `${actual}; ${context}`);
          } else {
            assert.deepEqual(reached, [], actual);
            // Without a detected IDE the client never tries, and its /ide command prints the
            // "not supported" text (checked above through the detected IDE) instead of details.
            // Qwen Code's second line is the transport's own error text: the first must match.
            if (predicted.detectedIde) {
              const firstLine = (text?: string) => text?.split('\n')[0];
              assert.equal(
                firstLine(state.details),
                firstLine(predicted.status),
                `${actual}; ${context}`,
              );
            }
          }
          assert.equal(
            report.ok,
            predicted.connected,
            'ok follows the prediction (IDE mode is on)',
          );
          assertExpected(setup.expect, predicted);
          for (const path of locks) {
            const deleted = (predicted.deletes ?? []).includes(path);
            assert.equal(
              existsSync(path),
              !deleted,
              `${path} ${deleted ? 'deleted' : 'kept'}; ${context}`,
            );
          }
        } finally {
          await client?.kill();
          await scene.dispose();
        }
      });
    }
  }
});

async function runDoctor(
  kind: ClientKind,
  scene: TestScene,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<DoctorReport> {
  const { status, stdout, stderr } = await runCommand(doctorCommand, ['--json', '--cli', kind], {
    cwd,
    env: clientEnvironment({
      kind,
      cwd,
      tmpDir: scene.tmpDir,
      qwenHome: scene.qwenHome,
      home: scene.home,
      env,
    }),
  });
  assert.equal(stderr, '');
  const report = JSON.parse(stdout) as DoctorReport;
  assert.equal(status, report.ok ? 0 : 1);
  return report;
}

function lockFiles(report: DoctorReport): string[] {
  return report.files.filter((file) => file.kind === 'qwen-lock').map((file) => file.path);
}

function assertExpected(expected: Expected, predicted: ClientReport): void {
  if (expected === 'no connection') {
    assert.equal(predicted.connected, false, 'the case expects no connection');
    return;
  }
  if (expected === 'crash') return;
  const ports = (Array.isArray(expected) ? expected : [expected]).map((engine) => engine.port);
  assert.ok(
    predicted.connected && ports.includes(predicted.port as number),
    `the case expects a connection to port ${ports.join(' or ')}`,
  );
}

function summary(client: ClientReport) {
  return {
    chosenFile: client.chosenFile,
    choice: client.choice,
    connected: client.connected,
    port: client.port,
    status: client.status,
    attempts: client.attempts.map((a) => `${a.host}:${a.port} ${a.probe.outcome}`),
    crash: client.crash,
  };
}
