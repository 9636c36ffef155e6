import { isObject } from '../scan/discovery-files.js';
import type { ClientKind } from './prediction.js';

export interface DetectedIde {
  name: string;
  displayName: string;
  from: 'ideInfo' | 'environment';
}

/**
 * The editor a CLI believes it runs in, decided once at start: the discovery data's `ideInfo`
 * when it has both names, else a few environment variables (Gemini CLI knows more of them than
 * Qwen Code). Undefined means "IDE integration is not supported in your current environment".
 */
export function detectIde(
  client: ClientKind,
  config: unknown,
  env: NodeJS.ProcessEnv,
  ideCommand: string,
): DetectedIde | undefined {
  const info = isObject(config) && isObject(config.ideInfo) ? config.ideInfo : undefined;
  if (info?.name && info.displayName) {
    return { name: String(info.name), displayName: String(info.displayName), from: 'ideInfo' };
  }
  const ide = client === 'gemini' ? geminiFromEnv(env, ideCommand) : qwenFromEnv(env, ideCommand);
  return ide && { ...ide, from: 'environment' };
}

/** The environment variables that alone make a CLI believe it runs in a known editor. */
export function editorClaimsOf(client: ClientKind, env: NodeJS.ProcessEnv): string[] {
  const claims = [`TERM_PROGRAM=${env.TERM_PROGRAM}`];
  if (client === 'qwen') return env.TERM_PROGRAM === 'vscode' ? claims : [];
  const set: string[] = ['vscode', 'sublime', 'Zed'].includes(env.TERM_PROGRAM ?? '') ? claims : [];
  for (const name of ['ZED_SESSION_ID', 'XCODE_VERSION_ACTUAL']) if (env[name]) set.push(name);
  if (isJetBrains(env)) set.push(`TERMINAL_EMULATOR=${env.TERMINAL_EMULATOR}`);
  return set;
}

type Ide = { name: string; displayName: string };

const VS_CODE: Ide = { name: 'vscode', displayName: 'VS Code' };
const VS_CODE_FORK: Ide = { name: 'vscodefork', displayName: 'IDE' };
const JETBRAINS: Ide = { name: 'jetbrains', displayName: 'JetBrains IDE' };

/** Shared by both CLIs, in their order. */
const COMMON_MARKERS: [(env: NodeJS.ProcessEnv) => boolean, Ide][] = [
  [(env) => !!env.__COG_BASHRC_SOURCED, { name: 'devin', displayName: 'Devin' }],
  [(env) => !!env.REPLIT_USER, { name: 'replit', displayName: 'Replit' }],
  [(env) => !!env.CURSOR_TRACE_ID, { name: 'cursor', displayName: 'Cursor' }],
  [(env) => !!env.CODESPACES, { name: 'codespaces', displayName: 'GitHub Codespaces' }],
  [
    (env) => !!(env.EDITOR_IN_CLOUD_SHELL || env.CLOUD_SHELL),
    { name: 'cloudshell', displayName: 'Cloud Shell' },
  ],
  [(env) => env.TERM_PRODUCT === 'Trae', { name: 'trae', displayName: 'Trae' }],
  [(env) => !!env.MONOSPACE_ENV, { name: 'firebasestudio', displayName: 'Firebase Studio' }],
];

const GEMINI_MARKERS: [(env: NodeJS.ProcessEnv) => boolean, Ide][] = [
  [(env) => !!env.ANTIGRAVITY_CLI_ALIAS, { name: 'antigravity', displayName: 'Antigravity' }],
  ...COMMON_MARKERS,
  [(env) => env.POSITRON === '1', { name: 'positron', displayName: 'Positron' }],
  [(env) => env.TERM_PROGRAM === 'sublime', { name: 'sublimetext', displayName: 'Sublime Text' }],
  [
    (env) => !!env.ZED_SESSION_ID || env.TERM_PROGRAM === 'Zed',
    { name: 'zed', displayName: 'Zed' },
  ],
  [(env) => !!env.XCODE_VERSION_ACTUAL, { name: 'xcode', displayName: 'XCode' }],
  [isJetBrains, JETBRAINS],
];

const JETBRAINS_PRODUCTS: [string, Ide][] = [
  ['idea', { name: 'intellijidea', displayName: 'IntelliJ IDEA' }],
  ['webstorm', { name: 'webstorm', displayName: 'WebStorm' }],
  ['pycharm', { name: 'pycharm', displayName: 'PyCharm' }],
  ['goland', { name: 'goland', displayName: 'GoLand' }],
  ['studio', { name: 'androidstudio', displayName: 'Android Studio' }],
  ['clion', { name: 'clion', displayName: 'CLion' }],
  ['rustrover', { name: 'rustrover', displayName: 'RustRover' }],
  ['datagrip', { name: 'datagrip', displayName: 'DataGrip' }],
  ['phpstorm', { name: 'phpstorm', displayName: 'PhpStorm' }],
];

function isJetBrains(env: NodeJS.ProcessEnv): boolean {
  return !!env.TERMINAL_EMULATOR?.toLowerCase().includes('jetbrains');
}

function geminiFromEnv(env: NodeJS.ProcessEnv, ideCommand: string): Ide | undefined {
  if (editorClaimsOf('gemini', env).length === 0) return undefined;
  const ide = GEMINI_MARKERS.find(([test]) => test(env))?.[1] ?? VS_CODE;
  if (isJetBrains(env)) {
    if (ide !== JETBRAINS || !ideCommand) return ide;
    const command = ideCommand.toLowerCase();
    return JETBRAINS_PRODUCTS.find(([product]) => command.includes(product))?.[1] ?? ide;
  }
  if (ide !== VS_CODE) return ide;
  return !ideCommand || ideCommand.toLowerCase().includes('code') ? VS_CODE : VS_CODE_FORK;
}

function qwenFromEnv(env: NodeJS.ProcessEnv, ideCommand: string): Ide | undefined {
  if (env.TERM_PROGRAM !== 'vscode') return undefined;
  const ide = COMMON_MARKERS.find(([test]) => test(env))?.[1] ?? VS_CODE;
  if (ide !== VS_CODE) return ide;
  return ideCommand && ideCommand.toLowerCase().includes('code') ? VS_CODE : VS_CODE_FORK;
}
