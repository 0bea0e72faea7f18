// The engine's Logger interface on VS Code's LogOutputChannel ("Fix Until Green" in the Output view).
import type * as vscode from 'vscode';
import { redact } from '../core/secrets';
import type { Logger } from '../core/types';

export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    // A key's value never reaches the Output view, whatever a message quotes (a server's error, a check's output).
    info: (m) => channel.info(redact(m)),
    warn: (m) => channel.warn(redact(m)),
    error: (m) => channel.error(redact(m)),
    debug: (m) => channel.debug(redact(m)),
  };
}
