import * as vscode from 'vscode';
import type { Logger } from '@tandem/core';

/**
 * The engine's log, in the window's "Tandem" output channel. Once the window is gone (reload,
 * quit) the channel throws: the engine's cleanup must go on, unlogged.
 */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  const safely = (write: (message: string) => void) => (message: string) => {
    try {
      write(message);
    } catch {
      // The window is gone, and its log with it.
    }
  };
  return {
    info: safely((message) => channel.info(message)),
    warn: safely((message) => channel.warn(message)),
    error: safely((message) => channel.error(message)),
  };
}
