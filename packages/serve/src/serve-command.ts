import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { realpath } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  ConnectionCap,
  Engine,
  stderrLogger,
  TANDEM_VERSION,
  tandemCommandFor,
  type CompanionWarning,
  type Logger,
} from '@tandem/core';
import {
  existingDirectory,
  parseCommandArgs,
  printable,
  ProcessHost,
  quotingShellOf,
  shellQuote,
  UsageError,
  withUsage,
  type CommandIO,
} from '@tandem/command';
import { openInBrowser, type OpenedPage } from './browser-opener.js';
import { ReviewQueue } from './review-queue.js';
import { ReviewServer } from './review-server.js';

export const serveUsage = `Usage: tandem serve [DIR] [--port PORT] [--open]

A standalone companion for the folder DIR (default: the current directory). Gemini CLI and
Qwen Code started in DIR connect to it, and every edit they propose opens on a review page in
your browser: read it side by side, change it, revert single changes, then accept or reject it.

Options:
  --port PORT  the review page's port on 127.0.0.1 (default: a free one)
  --open       open the review page in the default browser
  -h, --help   show this help

The page's URL carries a secret that opens one page (its reloads too): once it is open, the
URL opens nothing, and the next URL for another browser is printed.
Over SSH, forward the same port (ssh -L PORT:127.0.0.1:PORT HOST) and open the URL locally.

Exit status: 0 after a clean stop (Ctrl+C, SIGTERM, SIGHUP), 1 after a fatal error, 2 on a
usage error.`;

/** `tandem serve`: the engine for one folder, with the review page as its editor. */
export function serveCommand(argv: string[], io: CommandIO): Promise<number> {
  return withUsage('serve', serveUsage, io, async () =>
    serve(await parseOptions(argv, io.cwd), io),
  );
}

async function serve(
  options: { folder: string; port: number; open: boolean },
  io: CommandIO,
): Promise<number> {
  const pageDir = reviewPageDir();
  if (!pageDir) {
    io.stderr.write(
      'tandem serve: the review page is not built. Run `npm run build -w @tandem/web`.\n',
    );
    return 1;
  }

  const log = stderrLogger('tandem serve');
  const host = new ProcessHost((message) => log.error(message));
  try {
    return await serveUntilStopped(options, pageDir, host, log, io);
  } finally {
    host.dispose();
  }
}

async function serveUntilStopped(
  options: { folder: string; port: number; open: boolean },
  pageDir: string,
  host: ProcessHost,
  log: Logger,
  io: CommandIO,
): Promise<number> {
  const queue = new ReviewQueue(log);
  // Both servers draw on one budget of descriptors: idle sockets on the page's port, which
  // anyone may open, must not lock the CLIs out of the companion's.
  const connections = new ConnectionCap();
  let server: ReviewServer;
  let opened: OpenedPage | undefined;
  const tandem = await tandemCommandFor(process.argv[1], io.env);
  try {
    server = await ReviewServer.start({
      queue,
      pageDir,
      workspaceFolders: [options.folder],
      restartCommand: `${tandem} serve ${shellQuote(options.folder, quotingShellOf(io.env))}`,
      port: options.port,
      connections,
      // A spent URL (seen in a history) opens nothing; the file --open forwarded it with goes.
      secretUsed: (nextUrl) => {
        void opened?.remove();
        io.stdout.write(`The review page was opened. For another browser: ${nextUrl}\n`);
      },
      log,
    });
  } catch (error) {
    io.stderr.write(`tandem serve: cannot serve the review page: ${describe(error)}\n`);
    return 1;
  }
  let engine: Engine | undefined;
  try {
    const starting = Engine.start({
      editor: {
        name: 'tandem-serve',
        displayName: 'Tandem (browser)',
        version: TANDEM_VERSION,
        pid: process.pid,
      },
      frontend: queue,
      workspaceFolders: [options.folder],
      connections,
      // The CLIs run in terminals of the user's own: the warnings say what those need.
      ownTerminals: false,
      tandemCommand: tandem,
      log,
    });
    // A stop asked for while the engine starts does not wait on the start.
    engine = await Promise.race([starting, host.stopRequested.then(() => undefined)]);
    if (!engine) {
      // Should it start after all, it must not outlive the stop.
      void starting.then((late) => late.stop()).catch(() => undefined);
    }
  } catch (error) {
    await server.stop();
    io.stderr.write(`tandem serve: cannot start the companion: ${describe(error)}\n`);
    return 1;
  }
  if (!engine) {
    await server.stop();
    return host.exitStatus;
  }
  queue.answerTo(engine);

  io.stdout.write(
    `Tandem is serving ${options.folder}\n\n` +
      `  Review page: ${server.url}\n\n` +
      `In another terminal, start Gemini CLI or Qwen Code in that folder:\n` +
      `  cd ${shellQuote(options.folder, quotingShellOf(io.env))} && gemini      (or: qwen)\n` +
      `Each edit it proposes opens on the review page once IDE mode is on: type /ide enable.\n` +
      `If Gemini CLI or Qwen Code asks to install an extension for Tandem, answer No, then type\n` +
      `/ide enable: there is nothing to install.\n` +
      `Over SSH: ssh -L ${server.port}:127.0.0.1:${server.port} HOST, then open the page locally.\n` +
      `Press Ctrl+C to stop; diffs still pending are rejected.\n` +
      warningsText(engine.warnings()),
  );
  if (options.open) {
    opened = await openInBrowser(server.url, io.env, log).catch((error: unknown) => {
      log.warn(`could not open a browser (${describe(error)}); open the URL yourself`);
      return undefined;
    });
  }

  const reason = await host.stopRequested;
  log.info(`${reason}: stopping`);
  await opened?.remove();
  // The engine first: it rejects what is pending while the page can still show it go.
  queue.stopped();
  await engine.stop();
  await server.stop();
  return host.exitStatus;
}

async function parseOptions(argv: string[], cwd: string) {
  const { values, positionals } = parseCommandArgs(
    argv,
    { port: { type: 'string' }, open: { type: 'boolean' } },
    true,
  );
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${positionals[1]}`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535) {
    throw new UsageError(`--port must be a number from 0 to 65535, not ${values.port}`);
  }
  const folder = await existingDirectory(cwd, positionals[0]);
  // The CLIs compare real paths: so does the discovery data.
  return { folder: await realpath(folder), port, open: values.open ?? false };
}

/**
 * The built review page: `review-page/` beside the bundled command (as the npm package carries
 * it), else the `dist` folder of `@tandem/web` (a checkout).
 */
export function reviewPageDir(): string | undefined {
  const beside = fileURLToPath(new URL('./review-page', import.meta.url));
  const dir = existsSync(join(beside, 'index.html'))
    ? beside
    : join(dirname(createRequire(import.meta.url).resolve('@tandem/web/package.json')), 'dist');
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

/** The engine's warnings, for the start-up message. */
function warningsText(warnings: CompanionWarning[]): string {
  if (warnings.length === 0) return '';
  // A warning may name another editor from its discovery file: each stays one plain line.
  const lines = warnings.map(
    (warning) => `  ! ${printable(warning.message)}\n    fix: ${printable(warning.fix)}\n`,
  );
  return `\nBefore you start:\n${lines.join('')}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
