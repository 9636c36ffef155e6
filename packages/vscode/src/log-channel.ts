import * as vscode from 'vscode';
import type { Logger } from '@tandem/core';

/** The engine's log, in the window's "Tandem" output channel. */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message) => channel.error(message),
  };
}
