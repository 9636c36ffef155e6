// @ts-check
/**
 * Runs one real IdeClient — Gemini CLI's or Qwen Code's — in this process and drives it over
 * JSON lines (see runner-protocol.ts). Usage: `node client-runner.mjs gemini|qwen CLIENTS_DIR`,
 * where CLIENTS_DIR holds the installed CLIs (installed-clients.ts).
 *
 * Both clients are per-process singletons that read their environment (TMPDIR, HOME,
 * QWEN_HOME, TERM_PROGRAM, the cwd, REMOTE_CONTAINERS) when the instance is created, so the
 * parent prepares all of it before this process starts, and each scenario gets its own process.
 *
 * Plain JavaScript on purpose: under a TypeScript loader the 6 MB Qwen bundle takes about 2 s
 * to load instead of 0.4 s, and every scenario pays that again.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/** @typedef {import('./runner-protocol.js').ClientKind} ClientKind */
/** @typedef {import('./runner-protocol.js').ConnectionState} ConnectionState */
/** @typedef {import('./runner-protocol.js').DiffOutcome} DiffOutcome */
/** @typedef {import('./runner-protocol.js').DiffResult} DiffResult */
/** @typedef {import('./runner-protocol.js').IdeContext} IdeContext */
/** @typedef {import('./runner-protocol.js').IdeInfo} IdeInfo */
/** @typedef {import('./runner-protocol.js').RunnerCommand} RunnerCommand */
/** @typedef {import('./runner-protocol.js').RunnerMessage} RunnerMessage */

/**
 * The part of both clients' IdeClient that this runner uses (identical in both packages).
 * @typedef {object} IdeClient
 * @property {() => Promise<void>} connect
 * @property {(filePath: string, newContent: string) => Promise<DiffResult>} openDiff
 * @property {(filePath: string, options?: { suppressNotification?: boolean }) => Promise<string | undefined>} closeDiff
 * @property {(filePath: string, outcome: DiffOutcome) => Promise<void>} resolveDiffFromCli
 * @property {() => Promise<void>} disconnect
 * @property {() => { status: ConnectionState['status'], details?: string }} getConnectionStatus
 * @property {() => IdeInfo | undefined} getCurrentIde
 * @property {() => boolean} isDiffingEnabled
 * @property {(listener: () => void) => void} addStatusChangeListener
 */

/**
 * @typedef {object} ContextStore
 * @property {(subscriber: (context: IdeContext | undefined) => void) => () => void} subscribe
 */

/**
 * The MCP SDK client an IdeClient keeps in its `client` field.
 * @typedef {{ request: (message: unknown, ...rest: unknown[]) => Promise<unknown> }} McpConnection
 */

/** Text that only the Qwen chunk bundling the IDE client contains (its source-path comment). */
const QWEN_IDE_CLIENT_SOURCE = 'packages/core/src/ide/ide-client.ts';

/**
 * @param {ClientKind} kind
 * @param {NodeJS.Require} fromClients resolves in the installed CLIs
 * @returns {Promise<{ IdeClient: { getInstance(): Promise<IdeClient> }, ideContextStore: ContextStore }>}
 */
async function loadClient(kind, fromClients) {
  if (kind === 'gemini') {
    // ideContext.js is the very module ide-client.js imports, so this is the client's own store.
    const load = (/** @type {string} */ name) =>
      import(
        pathToFileURL(fromClients.resolve(`@google/gemini-cli-core/dist/src/ide/${name}`)).href
      );
    const [clientModule, contextModule] = await Promise.all([
      load('ide-client.js'),
      load('ideContext.js'),
    ]);
    return clientExports(
      { IdeClient: clientModule.IdeClient, ideContextStore: contextModule.ideContextStore },
      '@google/gemini-cli-core/dist/src/ide',
    );
  }
  const chunk = await findQwenIdeChunk(fromClients);
  return clientExports(await import(pathToFileURL(chunk).href), chunk);
}

/**
 * The Qwen package is one bundle whose chunk names carry a content hash: find the chunk by what
 * it contains.
 * @param {NodeJS.Require} fromClients
 * @returns {Promise<string>}
 */
async function findQwenIdeChunk(fromClients) {
  const packageJson = fromClients.resolve('@qwen-code/qwen-code/package.json');
  const chunks = path.join(path.dirname(packageJson), 'chunks');
  const names = (await readdir(chunks)).filter((name) => name.endsWith('.js'));
  const contains = await Promise.all(
    names.map(async (name) =>
      (await readFile(path.join(chunks, name))).includes(QWEN_IDE_CLIENT_SOURCE),
    ),
  );
  const matches = names.filter((_name, index) => contains[index]);
  if (matches.length !== 1) {
    throw new Error(
      `expected exactly one file in ${chunks} containing "${QWEN_IDE_CLIENT_SOURCE}", found ${matches.length}`,
    );
  }
  return path.join(chunks, /** @type {string} */ (matches[0]));
}

/**
 * @param {Record<string, any>} exports
 * @param {string} source
 */
function clientExports(exports, source) {
  const { IdeClient, ideContextStore } = exports;
  if (
    typeof IdeClient?.getInstance !== 'function' ||
    typeof ideContextStore?.subscribe !== 'function'
  ) {
    throw new Error(`${source} does not export IdeClient and ideContextStore`);
  }
  return { IdeClient, ideContextStore };
}

/** @param {unknown} error */
function describe(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The file path of an openDiff tool call, or undefined for any other request.
 * @param {any} message
 * @returns {string | undefined}
 */
function openDiffPath(message) {
  const isOpenDiff = message?.method === 'tools/call' && message.params?.name === 'openDiff';
  return isOpenDiff ? message.params.arguments?.filePath : undefined;
}

/**
 * The error text of a tool result, or undefined when it succeeded.
 * @param {any} result
 * @returns {string | undefined}
 */
function toolError(result) {
  if (!result?.isError) return undefined;
  const text = result.content?.find((/** @type {any} */ part) => part.type === 'text')?.text;
  return text ?? 'the openDiff tool reported an error';
}

class ClientRunner {
  /**
   * @param {IdeClient} ideClient
   * @param {ContextStore} contextStore
   * @param {(message: RunnerMessage) => void} send
   */
  constructor(ideClient, contextStore, send) {
    this.ideClient = ideClient;
    this.send = send;
    /**
     * Ids of openDiff requests whose tool call has not returned yet, per file path, oldest first
     * (the client's diff mutex sends the calls in that order).
     * @type {Map<string, number[]>}
     */
    this.awaitingOpen = new Map();
    /** @type {WeakSet<McpConnection>} */
    this.observedConnections = new WeakSet();
    ideClient.addStatusChangeListener(() => send({ type: 'status', state: this.state() }));
    contextStore.subscribe((context) => send({ type: 'context', context: context ?? null }));
  }

  /** @returns {ConnectionState} */
  state() {
    const { status, details } = this.ideClient.getConnectionStatus();
    return { status, details, diffingEnabled: this.ideClient.isDiffingEnabled() };
  }

  /** @param {RunnerCommand} command */
  async handle(command) {
    try {
      this.send({ type: 'reply', id: command.id, result: await this.run(command) });
    } catch (error) {
      this.send({ type: 'failure', id: command.id, error: describe(error) });
    }
  }

  /** @param {RunnerCommand} command */
  async run(command) {
    switch (command.command) {
      case 'connect':
        await this.ideClient.connect();
        this.observeOpenDiffCalls();
        return this.state();
      case 'status':
        return this.state();
      case 'openDiff':
        return this.openDiff(command.id, command.filePath, command.newContent);
      case 'closeDiff': {
        const { filePath, suppressNotification } = command;
        return { content: await this.ideClient.closeDiff(filePath, { suppressNotification }) };
      }
      case 'resolveDiffFromCli':
        await this.ideClient.resolveDiffFromCli(command.filePath, command.outcome);
        return {};
      case 'disconnect':
        await this.ideClient.disconnect();
        return this.state();
      default:
        throw new Error(`unknown command ${JSON.stringify(command)}`);
    }
  }

  /**
   * @param {number} id
   * @param {string} filePath
   * @param {string} newContent
   */
  async openDiff(id, filePath, newContent) {
    this.awaitingOpen.set(filePath, [...(this.awaitingOpen.get(filePath) ?? []), id]);
    try {
      return await this.ideClient.openDiff(filePath, newContent);
    } catch (error) {
      // Failed before its tool call returned (not connected, say): it will never open.
      if (this.forget(filePath, id)) this.send({ type: 'diffOpened', id, error: describe(error) });
      throw error;
    }
  }

  /**
   * @param {string} filePath
   * @param {number} id
   */
  forget(filePath, id) {
    const ids = this.awaitingOpen.get(filePath) ?? [];
    const index = ids.indexOf(id);
    if (index === -1) return false;
    ids.splice(index, 1);
    if (ids.length === 0) this.awaitingOpen.delete(filePath);
    return true;
  }

  /**
   * The public API only exposes the final outcome of openDiff. To report the moment the
   * companion answered the openDiff tool call, watch the calls on the client's own MCP
   * connection (its `client` field), passing every call and its result through unchanged.
   */
  observeOpenDiffCalls() {
    const connection = /** @type {{ client?: McpConnection }} */ (
      /** @type {unknown} */ (this.ideClient)
    ).client;
    if (!connection || this.observedConnections.has(connection)) return;
    this.observedConnections.add(connection);
    const request = connection.request.bind(connection);
    connection.request = (message, ...rest) => {
      const returned = request(message, ...rest);
      const filePath = openDiffPath(message);
      if (filePath !== undefined) {
        returned.then(
          (result) => this.openDiffReturned(filePath, toolError(result)),
          (error) => this.openDiffReturned(filePath, describe(error)),
        );
      }
      return returned;
    };
  }

  /**
   * @param {string} filePath
   * @param {string | undefined} error
   */
  openDiffReturned(filePath, error) {
    const id = this.awaitingOpen.get(filePath)?.[0];
    if (id === undefined || !this.forget(filePath, id)) return;
    this.send(error === undefined ? { type: 'diffOpened', id } : { type: 'diffOpened', id, error });
  }
}

/**
 * Protocol lines own stdout; whatever the clients print (Gemini's debug logger uses
 * console.debug) goes to stderr.
 * @returns {(line: string) => void}
 */
function takeOverStdout() {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = /** @type {typeof process.stdout.write} */ (
    process.stderr.write.bind(process.stderr)
  );
  return (line) => void write(line + '\n');
}

async function main() {
  const [kind, clientsDir] = process.argv.slice(2);
  if ((kind !== 'gemini' && kind !== 'qwen') || !clientsDir) {
    throw new Error(`usage: client-runner.mjs gemini|qwen CLIENTS_DIR (got ${kind} ${clientsDir})`);
  }
  const writeLine = takeOverStdout();
  /** @param {RunnerMessage} message */
  const send = (message) => writeLine(JSON.stringify(message));
  // The clients leave some promises floating (e.g. closing the MCP client); like the CLIs, live on.
  process.on('unhandledRejection', (reason) => console.error('unhandled rejection:', reason));

  const { IdeClient, ideContextStore } = await loadClient(
    kind,
    createRequire(path.join(clientsDir, 'package.json')),
  );
  const ideClient = await IdeClient.getInstance();
  const runner = new ClientRunner(ideClient, ideContextStore, send);
  send({ type: 'ready', ide: ideClient.getCurrentIde() ?? null, state: runner.state() });

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let command;
    try {
      command = JSON.parse(line);
    } catch {
      console.error(`ignored a line that is not JSON: ${line}`);
      return;
    }
    void runner.handle(command);
  });
  // The parent is gone or done: end like a CLI that is closed.
  lines.on('close', () => process.exit(0));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
