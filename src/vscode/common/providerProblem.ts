// The extension's wording of a model provider that cannot be built: the settings and commands that
// fix it, never the CLI's flags. Kept apart from modelProvider.ts, which needs the vscode module.
import type { ProviderConfigError } from '../../core/model/factory';

/** VS Code's wording of a provider that cannot be built: the settings and commands that fix it. */
export function providerProblem(e: ProviderConfigError): string {
  switch (e.code) {
    case 'no-replay-file':
      return 'fixUntilGreen.model.id is empty: name the replay script file, relative to the workspace folder';
    case 'no-model-id':
      return `fixUntilGreen.model.id is empty: name the ${e.provider} model to use`;
    case 'unknown-provider':
      return `fixUntilGreen.model.provider "${e.provider}" is not available in this version of the extension`;
    case 'host-provider':
    case 'bad-replay-file':
    case 'no-api-key':
      // In settings terms already; the key hint given was VS Code's (Set API Key).
      return e.message;
  }
}
