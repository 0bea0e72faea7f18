// The engine's Logger interface on VS Code's LogOutputChannel ("Fix Until Green" in the Output view).
import type * as vscode from 'vscode';
import type { Logger } from '../core/types';

export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
    debug: (m) => channel.debug(m),
  };
}
