// The gate at an agent host's hooks (issue 30): at the agent's stop, the project's own checks and
// the stop policy decide whether it may stop (stopGate.ts); before its edit tool writes, the
// critics' rules decide whether the write may happen, and the file's bytes are checkpointed first.
// One engine for every host: hookHosts.ts words the answer. Each call is one process; the session's
// memory is its record (hookSession.ts).
import picomatch from 'picomatch';
import { readWorkspaceText } from '../edit/readText';
import { FsWorkspace, oneLine } from '../edit/workspace';
import type { ProposedFile } from '../policy/critics';
import { addedSuppressions, namesOf, protectedPathPatterns } from '../policy/critics';
import { recordVerifier, VERIFIER_CONFIG_GLOBS, verifierProtection } from '../policy/integrity';
import type { Settings } from '../settings';
import type { HookContext, HookResult } from './hookContext';
import { landingIn } from '../edit/landing';
import type { Landing } from '../edit/landing';
import { locked, nowOf, openSession } from './hookContext';
import type { HookCall } from './hookHosts';
import type { HookSession } from './hookSession';
import { stopGate } from './stopGate';

export async function handleHookCall(ctx: HookContext): Promise<HookResult> {
  switch (ctx.call.event) {
    case 'stop':
      return stopGate(ctx);
    case 'pre-tool':
      return guardEdit(ctx);
    case 'post-tool':
      return recordEdit(ctx);
    case 'session-end':
    case 'other':
      return { answer: { kind: 'allow' }, runId: null, tracePath: null };
  }
}

// Before an edit tool writes

function afterText(before: string | null, w: HookCall['writes'][number]): string | null {
  if (w.deletes) return null;
  if (w.content !== undefined) return w.content;
  if (w.edits) {
    let text = before ?? '';
    for (const e of w.edits) text = e.all ? text.split(e.oldText).join(e.newText) : text.replace(e.oldText, () => e.newText);
    return text;
  }
  // A patch: only its added lines are known; judged as if added to what is there.
  if (w.addedLines) return [before ?? '', ...w.addedLines].join('\n');
  return before;
}

/** Why the write is refused (protected path, the verifier, a suppression), or undefined when it may go ahead. */
export function guardReason(files: readonly ProposedFile[], settings: Settings, record: ReturnType<HookSession['verifierRecord']>): string | undefined {
  const patterns = protectedPathPatterns(settings.protectedPaths);
  const isProtected = patterns.length > 0 ? picomatch(patterns, { dot: true }) : (): boolean => false;
  // Judged by every name: the path as written and the file it lands on (a link into test/ is a test).
  const hits = files.filter((f) => namesOf(f).some((n) => isProtected(n)));
  if (hits.length > 0) {
    return `Fix Until Green: ${hits.map((f) => (f.asWritten !== undefined ? `${f.asWritten} (${f.path})` : f.path)).join(', ')} ${hits.length === 1 ? 'is' : 'are'} protected (fixUntilGreen.protectedPaths ${JSON.stringify(settings.protectedPaths)}): the tests decide whether the code is right, so fix the code under test instead of the test.`;
  }
  if (!settings.allowVerifierEdits) {
    const isConfig = picomatch([...VERIFIER_CONFIG_GLOBS], { dot: true });
    const verifier = files.map((f) => verifierProtection(f, record, isConfig)).filter((x): x is string => x !== undefined);
    if (verifier.length > 0) {
      return `Fix Until Green: this edit changes what decides whether the code passes (${verifier.join('; ')}). Fix the code, not the checks (fixUntilGreen.allowVerifierEdits is off).`;
    }
  }
  if (settings.forbidSuppressions) {
    const added = addedSuppressions(files);
    if (added.length > 0) {
      return `Fix Until Green: this edit adds suppression(s) instead of fixing the cause: ${added.map((a) => `${a.pattern} in ${a.file}: \`${a.line}\``).join('; ')}. Fix the cause (fixUntilGreen.forbidSuppressions is on).`;
    }
  }
  return undefined;
}

/**
 * An edit let through whose original could not be saved: `revert --session` cannot put it back.
 * Said where the host shows the user something (never a silent allow), or the edit is denied when
 * the user asked for that (`fixUntilGreen.denyUnrevertableEdits`).
 */
export function unrevertable(settings: Pick<Settings, 'denyUnrevertableEdits'> | undefined, rels: readonly string[], why: string): HookResult['answer'] {
  const files = rels.length > 0 ? rels.join(', ') : 'this edit';
  if (settings?.denyUnrevertableEdits) {
    return { kind: 'deny', reason: `Fix Until Green: the original of ${files} cannot be saved (${why}), so this edit could not be reverted; it is refused because fixUntilGreen.denyUnrevertableEdits is on. Try again once the hook's storage can be written.` };
  }
  return { kind: 'allow', message: `Fix Until Green: the original of ${files} could not be saved (${why}); this edit cannot be reverted by \`fix-until-green revert --session\`.` };
}

type Placed = { w: HookCall['writes'][number]; at: Landing }[];

/** Where each write of the call lands in the folder (the agent's relative paths from its own cwd). */
function landings(ctx: HookContext): Placed {
  return ctx.call.writes.map((w) => ({ w, at: landingIn(ctx.root, ctx.call.cwd, w.path) }));
}

function insideRels(at: readonly { at: Landing }[]): string[] {
  return [...new Set(at.flatMap((x) => (x.at.kind === 'inside' ? [x.at.rel] : [])))];
}

function unplacedOf(placed: Placed): Extract<Landing, { kind: 'refused' }>[] {
  return placed.flatMap((x) => (x.at.kind === 'refused' ? [x.at] : []));
}

/** Why a write that cannot be placed inside the project (a link out of it, a loop) is refused. */
function unplacedReason(unplaced: readonly Extract<Landing, { kind: 'refused' }>[]): string {
  return `Fix Until Green: ${unplaced.map((u) => u.reason).join('; ')}: a write through a link out of the workspace (or one that cannot be placed) is refused; write the file inside the project by its real path.`;
}

function proposedFiles(ctx: HookContext, placed: Placed): ProposedFile[] {
  const files: ProposedFile[] = [];
  for (const { w, at } of placed) {
    if (at.kind !== 'inside') continue;
    const before = readWorkspaceText(ctx.root, at.rel) ?? null;
    const after = afterText(before, w);
    files.push({ path: at.rel, ...(at.asWritten !== undefined ? { asWritten: at.asWritten } : {}), kind: w.deletes ? 'delete' : before === null ? 'create' : 'modify', before, after });
  }
  return files;
}

async function guardEdit(ctx: HookContext): Promise<HookResult> {
  const placed = landings(ctx);
  const rels = insideRels(placed);
  const unplaced = unplacedOf(placed);
  if (rels.length === 0 && unplaced.length === 0) return { answer: { kind: 'allow' }, runId: null, tracePath: null };
  try {
    return await guardLocked(ctx, placed, rels);
  } catch (e) {
    // The storage cannot be written (its folder cannot be made, the record not saved): the edit is
    // still judged, against what defines the checks now, and said to be unrevertable.
    const refused = unplaced.length > 0 ? unplacedReason(unplaced) : guardReason(proposedFiles(ctx, placed), ctx.settings, recordVerifier(ctx.root, ctx.checks.checks));
    if (refused) return { answer: { kind: 'deny', reason: refused }, runId: null, tracePath: null };
    return { answer: unrevertable(ctx.settings, rels, `the storage ${ctx.storageDir} cannot be written: ${oneLine(e)}`), runId: null, tracePath: null };
  }
}

function guardLocked(ctx: HookContext, placed: Placed, rels: string[]): Promise<HookResult> {
  const unplaced = unplacedOf(placed);
  return locked(ctx, async (lock) => {
    // Without the lock (a live hook call holds it past this call's deadline) the edit is still judged.
    const session = await openSession(ctx, lock);
    const files = proposedFiles(ctx, placed);
    const now = nowOf(ctx);
    const refused = unplaced.length > 0 ? unplacedReason(unplaced) : guardReason(files, ctx.settings, session.verifierRecord());
    const step = session.nextStep();
    if (refused) {
      session.write({ type: 'hook', step, host: ctx.call.host, event: 'pre-tool', hostEvent: ctx.call.eventName, answer: 'deny', reason: refused, files: [...rels, ...unplaced.map((u) => u.asWritten)], sessionId: ctx.call.sessionId }, now);
      session.save();
      return { answer: { kind: 'deny', reason: refused }, runId: session.runId, tracePath: session.tracePath };
    }
    if (!lock.held) return { answer: unrevertable(ctx.settings, rels, lock.why), runId: session.runId, tracePath: null };
    // Nothing of the user's lost: the bytes before the agent's first write, saved outside the tree.
    try {
      const cp = await session.checkpoint();
      await cp.saveBeforeWriteBy(new FsWorkspace(ctx.root), rels);
    } catch (e) {
      return { answer: unrevertable(ctx.settings, rels, `the storage ${ctx.storageDir} cannot be written: ${oneLine(e)}`), runId: session.runId, tracePath: null };
    }
    for (const r of rels) {
      if (!session.state.touched.includes(r)) session.state.touched.push(r);
      if (!session.state.changedSinceStop.includes(r)) session.state.changedSinceStop.push(r);
    }
    session.write({ type: 'hook', step, host: ctx.call.host, event: 'pre-tool', hostEvent: ctx.call.eventName, answer: 'allow', reason: `checkpointed before the ${ctx.call.toolName ?? 'edit'} tool writes`, files: rels, sessionId: ctx.call.sessionId }, now);
    session.save();
    return { answer: { kind: 'allow' }, runId: session.runId, tracePath: session.tracePath };
  });
}

async function recordEdit(ctx: HookContext): Promise<HookResult> {
  const rels = insideRels(landings(ctx));
  if (rels.length === 0) return { answer: { kind: 'allow' }, runId: null, tracePath: null };
  return locked(ctx, async (lock) => {
    const session = await openSession(ctx, lock);
    if (!lock.held) return { answer: { kind: 'allow', message: `Fix Until Green: what the ${ctx.call.toolName ?? 'edit'} tool wrote to ${rels.join(', ')} was not recorded (${lock.why}); a later change to it may be taken for the agent's by \`revert --session\`.` }, runId: session.runId, tracePath: null };
    const cp = await session.checkpoint();
    // What the agent's tool left is the session's last write: a revert restores over it, and leaves alone a later change by the user.
    const recorded = await cp.recordWrittenBy(new FsWorkspace(ctx.root), rels);
    if (recorded.length > 0) {
      session.write({ type: 'hook', step: session.nextStep(), host: ctx.call.host, event: 'post-tool', hostEvent: ctx.call.eventName, answer: 'allow', reason: `recorded what the ${ctx.call.toolName ?? 'edit'} tool wrote`, files: recorded, sessionId: ctx.call.sessionId }, nowOf(ctx));
      session.save();
    }
    return { answer: { kind: 'allow' }, runId: session.runId, tracePath: session.tracePath };
  });
}
