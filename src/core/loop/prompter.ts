// Builds each step's prompt and measures what it may cost: the context builder's view of the
// failures and files, the provider's own count where it has one, and a margin learned from the
// usage providers report.
import type { FileTracker } from '../edit/tracker';
import type { Workspace } from '../edit/workspace';
import type { InputAllowance } from '../model/budget';
import { InputGauge } from '../model/budget';
import type { StepContext } from '../model/context';
import { buildStepContext } from '../model/context';
import type { ModelProvider } from '../model/provider';
import { countTokens, MESSAGE_OVERHEAD_TOKENS } from '../tokens';
import type { Settings } from '../settings';
import type { Logger, VerifyResult } from '../types';
import { cutNotes } from '../verify/cut';

/** A step's prompt, with the context builder's upper bound on the user part's tokens. */
export type Prompt = Pick<StepContext, 'system' | 'user' | 'userTokens'>;

export interface PrompterOptions {
  workspace: Workspace;
  settings: Settings;
  provider: ModelProvider;
  tracker: FileTracker;
  logger: Logger;
  signal: AbortSignal;
  instruction?: string;
  activeFile?: string;
}

export class Prompter {
  /** Files the run has changed so far, oldest first: shown to the model. */
  readonly editedFiles = new Set<string>();
  private gauge = new InputGauge();
  private provider: ModelProvider;

  constructor(private readonly o: PrompterOptions) {
    this.provider = o.provider;
  }

  /** The next calls go to another model (escalation): its count, and a margin learned afresh from its usage. */
  useProvider(p: ModelProvider): void {
    this.provider = p;
    this.gauge = new InputGauge();
  }

  private async readText(rel: string): Promise<string | undefined> {
    const b = await this.o.workspace.read(rel);
    this.o.tracker.noteRead(rel, b);
    if (!b) return undefined;
    const t = Buffer.from(b).toString('utf8');
    return t.includes('\0') ? undefined : t;
  }

  build(step: number, state: VerifyResult, postMortems: readonly string[], feedback: string | undefined): Promise<Prompt> {
    return buildStepContext({
      step,
      settings: this.o.settings,
      failures: state.failures,
      flaky: state.flaky,
      root: this.o.workspace.root,
      cut: cutNotes(state.checks),
      editedFiles: this.editedFiles,
      ...(this.o.activeFile ? { activeFile: this.o.activeFile } : {}),
      ...(this.o.instruction ? { instruction: this.o.instruction } : {}),
      postMortems,
      ...(feedback ? { feedback } : {}),
      readText: (rel) => this.readText(rel),
      logger: this.o.logger,
    });
  }

  /**
   * The most the next call's input may come to: the provider's own count when it has one, else the
   * tokenizer's estimate, either with a margin learned from the usage providers report.
   */
  async measure(prompt: Prompt): Promise<InputAllowance> {
    const req = { system: prompt.system, messages: [{ role: 'user' as const, content: prompt.user }] };
    if (this.provider.countInputTokens) {
      try {
        return this.gauge.allowance(await this.provider.countInputTokens(req, this.o.signal), 'provider');
      } catch (e) {
        if (this.o.signal.aborted) throw e;
        // Counting is an optimization: without it the tokenizer estimate and its margin still hold the ceiling.
        this.o.logger.warn(`${this.provider.label}: counting the prompt's tokens failed (${(e as Error).message}); using the tokenizer's estimate`);
      }
    }
    // The context builder's count of the user prompt bounds it from its parts; the system prompt is the same every step.
    return this.gauge.allowance(countTokens(prompt.system) + prompt.userTokens + 2 * MESSAGE_OVERHEAD_TOKENS, 'tokenizer');
  }

  /** What the provider reported the input cost, against what was measured: the margin learns. */
  observeUsage(measured: InputAllowance, input: number): void {
    this.gauge.observe(measured, input);
  }
}
