// Tests in VS Code's Testing view, loaded with the engine (the shell's testResults.ts hands over
// once a run, a check pass, the Testing view or its Run button needs it). After a run stops, or after
// Run Checks, each failing test of the folder's test checks (mocha, jest, vitest, node:test, tap) is
// a test item marked failed, its message the values' one-line headline with expected and actual for
// the diff and the stack as frames, so the Test Results and the inline peek show the diff the user
// knows. A test seen failing in this window (by any verification of a run, or a check pass) stays
// listed and turns passed once a verification no longer reports it. A check pass (Run Checks, the
// Run profile) also lists passed every test its checks' output named as passed (CheckResult.passed);
// so does a run's stop, from the verification of this window's run that found its failures (the
// trace keeps no output or passing tests: after a reload only the failing tests are known). Each
// test run carries what the checks printed, the lines a runner wrote under a test's name with it.
// The Run profile runs the folder's checks through its controller, as Run Checks does, and reports
// into a real test run.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Failure, VerifyResult } from '../core/types';
import type { RunController } from './controller';
import type { RunControllers } from './runControllers';
import type { CheckPassed, TestEntry } from './common/testEntries';
import { noteFailing, passedTests, recordFailures, testFailures, testMessageParts, wholeCheckFailures } from './common/testEntries';
import { checkHeading, crlf, outputBlocks } from './common/testOutput';
import { readSettings } from './settings';
import { plural } from './common/chatWords';
import { untrustedSentence } from './common/trustWords';

const ROOT_PREFIX = 'folder:';

export class TestingView {
  /** Per folder, the tests known in this window. */
  private readonly books = new Map<string, Map<string, TestEntry>>();
  private readonly shown = new Map<string, readonly Failure[]>();
  private readonly noted = new Map<string, readonly Failure[]>();
  private readonly reverted = new Map<string, string | null>();
  /** Folders whose check pass a test run of the profile reports (it records the result itself). */
  private readonly profileRuns = new Set<string>();

  constructor(
    private readonly ctrl: vscode.TestController,
    private readonly controllers: RunControllers,
  ) {}

  /** A run's stop or a check pass: its test failures go into the folder's book and the view. */
  follow(c: RunController): void {
    if (this.profileRuns.has(c.folder)) return;
    const s = c.state;
    const failures = s.remainingFailures;
    if (c.running) {
      // Live failures change with every step: the tests a run sees failing are noted, and listed with its result once it stops.
      if (this.noted.get(c.folder) !== failures) this.books.set(c.folder, noteFailing(this.books.get(c.folder) ?? new Map(), testFailures(failures, s.checkParsers ?? {})));
      this.noted.set(c.folder, failures);
      return;
    }
    const revertedNow = s.reverted === 'run' && this.reverted.get(c.folder) !== 'run';
    this.reverted.set(c.folder, s.reverted ?? null);
    if (this.shown.get(c.folder) === failures && !revertedNow) return;
    this.shown.set(c.folder, failures);
    if (revertedNow) {
      // The files are back as they were before the run: a test it made pass is not known to pass now.
      this.books.delete(c.folder);
      this.ctrl.items.delete(ROOT_PREFIX + c.folder);
      return;
    }
    // A run that stopped before its first check (a preflight refusal) saw no test.
    if (s.failuresPerStep.length === 0 && !s.checked) return;
    // The verification that found these failures (a check pass, or one of this window's run), with
    // its passing tests and output; none after a reload (the trace keeps neither).
    const v = c.verificationOf(failures);
    const entries = this.record(c, failures, wholeCheckFailures(failures), v ? passedTests(v.checks) : []);
    if (entries.length === 0) return;
    const run = this.ctrl.createTestRun(new vscode.TestRunRequest([this.ctrl.items.get(ROOT_PREFIX + c.folder)!]), `Fix Until Green (${c.folderName})`, false);
    if (v) appendChecksOutput(run, v, entries);
    this.report(run, entries, c.folder);
    run.end();
  }

  /** Records a verification's failures in the folder's book and updates its items; the items with their entries. */
  private record(c: RunController, failures: readonly Failure[], unsure: ReadonlySet<string>, passed: readonly CheckPassed[]): { item: vscode.TestItem; entry: TestEntry }[] {
    const book = recordFailures(this.books.get(c.folder) ?? new Map(), testFailures(failures, c.state.checkParsers ?? {}), unsure, passed);
    this.books.set(c.folder, book);
    const rootId = ROOT_PREFIX + c.folder;
    if (book.size === 0) {
      this.ctrl.items.delete(rootId);
      return [];
    }
    const root = this.ctrl.items.get(rootId) ?? this.ctrl.createTestItem(rootId, c.folderName, vscode.Uri.file(c.folder));
    this.ctrl.items.add(root);
    const entries = [...book.values()].map((entry) => {
      const id = `${rootId}::${entry.key}`;
      const uri = entry.file ? vscode.Uri.file(path.join(c.folder, ...entry.file.split('/'))) : undefined;
      // The item the view (and a run request) holds stays the same object while its test is known.
      const old = root.children.get(id);
      const item = old && old.uri?.toString() === uri?.toString() ? old : this.ctrl.createTestItem(id, entry.label, uri);
      item.label = entry.label;
      item.range = entry.line ? new vscode.Range(entry.line - 1, 0, entry.line - 1, 0) : undefined;
      return { item, entry };
    });
    root.children.replace(entries.map((x) => x.item));
    return entries;
  }

  private report(run: vscode.TestRun, entries: readonly { item: vscode.TestItem; entry: TestEntry }[], folder: string): void {
    for (const { item, entry } of entries) {
      if (entry.state === 'failed' && entry.failure) run.failed(item, message(entry.failure, item, folder));
      else run.passed(item);
    }
  }

  /** The Run profile: each folder asked for runs its checks once (as Run Checks does) and reports its tests. */
  async runProfile(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.ctrl.createTestRun(request, 'Fix Until Green: Run Checks', false);
    try {
      for (const [folder, asked] of this.askedByFolder(request)) {
        if (token.isCancellationRequested) break;
        await this.runFolder(run, folder, asked, token);
      }
    } finally {
      run.end();
    }
  }

  /** The items asked for, by folder; `undefined`: the whole folder. */
  private askedByFolder(request: vscode.TestRunRequest): Map<string, vscode.TestItem[] | undefined> {
    const out = new Map<string, vscode.TestItem[] | undefined>();
    const roots: vscode.TestItem[] = [];
    this.ctrl.items.forEach((r) => roots.push(r));
    const excluded = new Set((request.exclude ?? []).map((x) => x.id));
    for (const item of request.include ?? roots) {
      const root = item.parent ?? item;
      if (excluded.has(root.id) || !root.id.startsWith(ROOT_PREFIX)) continue;
      const folder = root.id.slice(ROOT_PREFIX.length);
      if (item === root) out.set(folder, undefined);
      else if (!out.has(folder) || out.get(folder) !== undefined) out.set(folder, [...(out.get(folder) ?? []), item]);
    }
    return out;
  }

  private async runFolder(run: vscode.TestRun, folder: string, asked: vscode.TestItem[] | undefined, token: vscode.CancellationToken): Promise<void> {
    const c = this.controllers.find(folder);
    const root = this.ctrl.items.get(ROOT_PREFIX + folder);
    const scope = (): vscode.TestItem[] => {
      const all: vscode.TestItem[] = [];
      root?.children.forEach((i) => all.push(i));
      return asked ? asked.filter((i) => all.includes(i)) : all;
    };
    const refused = this.refusal(c);
    if (refused || !c) {
      for (const item of scope()) run.errored(item, new vscode.TestMessage(refused ?? `${folder} is not open in this window`));
      return;
    }
    const read = readSettings(vscode.Uri.file(folder));
    if (!read.ok) {
      for (const item of scope()) run.errored(item, new vscode.TestMessage(`Fix Until Green's settings are not valid: ${read.message}`));
      return;
    }
    for (const item of scope()) run.started(item);
    const one = asked && asked.length === 1 ? ` for ${asked[0]!.label}` : '';
    run.appendOutput(`Fix Until Green: running the checks of ${c.folderName}${one}, as Run Checks does (the folder's checks run whole: a single test is not run alone)\r\n`);
    const v = await this.verify(c, read.settings, token);
    if (typeof v === 'string') {
      for (const item of scope()) {
        if (token.isCancellationRequested) run.skipped(item);
        else run.errored(item, new vscode.TestMessage(v));
      }
      run.appendOutput(`Fix Until Green: ${v}\r\n`);
      return;
    }
    const entries = this.record(c, v.failures, unsureChecks(v), passedTests(v.checks));
    appendChecksOutput(run, v, entries);
    // The folder's checks ran whole: every test they tell about has a result, asked for or not.
    this.report(run, entries, folder);
    run.appendOutput(`Fix Until Green: ${v.green ? 'all checks pass' : `${plural(v.failures.length, 'failure')}`} in ${c.folderName} (${v.checks.map((x) => `${x.name} exit ${x.exitCode}`).join(', ')})\r\n`);
  }

  private refusal(c: RunController | undefined): string | undefined {
    if (!vscode.workspace.isTrusted) return untrustedSentence("Fix Until Green runs this workspace's checks");
    if (c?.running) return `a run is in progress in ${c.folderName}; its checks are already running`;
    return undefined;
  }

  /** One check pass through the folder's controller (the Problems panel and the run panel follow it as after Run Checks); a string when it did not complete. */
  private async verify(c: RunController, settings: Parameters<RunController['verify']>[0], token: vscode.CancellationToken): Promise<VerifyResult | string> {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
    this.profileRuns.add(c.folder);
    try {
      const v = await c.verify(settings, abort.signal);
      return token.isCancellationRequested ? 'the checks were cancelled' : v;
    } catch (e) {
      return token.isCancellationRequested ? 'the checks were cancelled' : e instanceof Error ? e.message : String(e);
    } finally {
      sub.dispose();
      this.profileRuns.delete(c.folder);
      // What the check pass left in the state is recorded (or, when cancelled, deliberately not): not again by follow().
      this.shown.set(c.folder, c.state.remainingFailures);
    }
  }

}

/** Checks of a pass that say nothing reliable about their tests: cancelled, timed out, not started, or failing without naming a test. */
function unsureChecks(v: VerifyResult): Set<string> {
  const out = wholeCheckFailures(v.failures);
  for (const x of v.checks) if (x.cancelled || x.timedOut) out.add(x.name);
  return out;
}

/**
 * What the checks printed, into the run's output (Test Results shows it, as for the Testing view's
 * own runs): each check under its command and exit code, the lines a runner wrote under a test's
 * name given with that test (and its place), so the test's own results show them too.
 */
function appendChecksOutput(run: vscode.TestRun, v: VerifyResult, entries: readonly { item: vscode.TestItem; entry: TestEntry }[]): void {
  for (const check of v.checks) {
    const mine = entries.filter((x) => x.entry.check === check.name);
    const items = new Map(mine.map((x) => [x.entry.key, x.item]));
    const tests = mine.map((x) => ({ key: x.entry.key, names: [x.entry.failure?.id ?? x.entry.label, x.entry.label] }));
    run.appendOutput(crlf(`${checkHeading(check)}\n`));
    if (check.output.trim() === '') run.appendOutput(crlf('(no output)\n'));
    for (const b of outputBlocks(check.output, tests)) {
      const item = b.test !== undefined ? items.get(b.test) : undefined;
      run.appendOutput(crlf(b.text), item?.uri && item.range ? new vscode.Location(item.uri, item.range) : undefined, item);
    }
    run.appendOutput('\r\n');
  }
}

function message(f: Failure, item: vscode.TestItem, folder: string): vscode.TestMessage {
  const parts = testMessageParts(f, folder);
  const m = parts.expected !== undefined && parts.actual !== undefined ? vscode.TestMessage.diff(parts.text, parts.expected, parts.actual) : new vscode.TestMessage(parts.text);
  if (item.uri && item.range) m.location = new vscode.Location(item.uri, item.range);
  if (parts.stack.length > 0) {
    m.stackTrace = parts.stack.map((s) => new vscode.TestMessageStackFrame(s.label, s.file ? vscode.Uri.file(s.file) : undefined, s.line ? new vscode.Position(s.line - 1, Math.max(0, (s.column ?? 1) - 1)) : undefined));
  }
  return m;
}
