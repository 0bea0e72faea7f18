// The reply corpus (test/fixtures/replies/cases): replies written the way models write them, each
// with its expected result. Applied ones must produce exactly the expected bytes; refused ones must
// leave the whole scratch folder (project and its surroundings) byte-identical.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { ApplyCliIo } from '../../../src/cli/applyCommand';
import { main } from '../../../src/cli/main';
import { applyEdits } from '../../../src/core/edit/apply';
import type { FileSummary } from '../../../src/core/edit/apply';
import { parseReply } from '../../../src/core/edit/parse';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import type { EditFormat } from '../../../src/core/settings';
import { REPO } from '../../support/fixtures';
import { fullTreeHash, REPLIES, replyWorkspace } from './support/tree';
import type { ReplyWorkspace } from './support/tree';

interface Expect {
  what: string;
  applied: boolean;
  editFormat?: EditFormat;
  files?: [string, FileSummary['kind'], number, number][];
  errors?: string[];
}

interface Case {
  name: string;
  dir: string;
  reply: string;
  expect: Expect;
}

const CASES_DIR = path.join(REPLIES, 'cases');
const cases: Case[] = readdirSync(CASES_DIR)
  .sort()
  .map((name) => {
    const dir = path.join(CASES_DIR, name);
    return { name, dir, reply: readFileSync(path.join(dir, 'reply.md'), 'utf8'), expect: JSON.parse(readFileSync(path.join(dir, 'expect.json'), 'utf8')) as Expect };
  });

function setup(c: Case): ReplyWorkspace {
  return replyWorkspace(c.expect.editFormat ? { 'fixUntilGreen.editFormat': c.expect.editFormat } : undefined);
}

/** The tree the case should leave: a fresh copy with the case's `after/` files and deletions. */
function expectedHash(c: Case, skip: (rel: string) => boolean): string {
  const ws = setup(c);
  try {
    for (const [rel, kind] of c.expect.files ?? []) {
      const target = path.join(ws.project, ...rel.split('/'));
      if (kind === 'delete') rmSync(target);
      else {
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, readFileSync(path.join(c.dir, 'after', ...rel.split('/'))));
      }
    }
    return fullTreeHash(ws.dir, skip);
  } finally {
    ws.cleanup();
  }
}

function checkErrors(c: Case, errors: string[]): void {
  if (c.expect.applied) {
    assert.deepEqual(errors, [], `${c.name}: no errors`);
    return;
  }
  assert.ok(errors.length > 0, `${c.name}: a refused reply says why`);
  for (const re of c.expect.errors ?? []) {
    assert.ok(
      errors.some((e) => new RegExp(re).test(e)),
      `${c.name}: an error matches /${re}/; errors were:\n${errors.join('\n---\n')}`,
    );
  }
}

function sortFiles(files: FileSummary[]): [string, string, number, number][] {
  return files.map((f): [string, string, number, number] => [f.path, f.kind, f.added, f.removed]).sort((a, b) => a[0].localeCompare(b[0]));
}

describe('edit/corpus: model replies and their expected results', () => {
  it('holds at least 40 replies, refused and applied both well represented', () => {
    assert.ok(cases.length >= 40, `${cases.length} cases`);
    assert.ok(cases.filter((c) => c.expect.applied).length >= 15);
    assert.ok(cases.filter((c) => !c.expect.applied).length >= 15);
    for (const c of cases) {
      if (!c.expect.applied) continue;
      for (const [rel, kind] of c.expect.files ?? []) {
        if (kind !== 'delete') assert.ok(existsSync(path.join(c.dir, 'after', rel)), `${c.name}: after/${rel} exists`);
      }
    }
  });

  for (const c of cases) {
    it(`${c.name}: ${c.expect.what}`, async () => {
      const ws = setup(c);
      try {
        const before = fullTreeHash(ws.dir);
        const parsed = parseReply(c.reply, c.expect.editFormat ?? 'auto');
        const r =
          parsed.errors.length > 0
            ? { applied: false, errors: parsed.errors, files: [] as FileSummary[] }
            : await applyEdits(parsed.edits, { workspace: new FsWorkspace(ws.project), policy: { root: ws.project, forbiddenDirs: [ws.storage] } });
        checkErrors(c, r.errors);
        assert.equal(r.applied, c.expect.applied, `${c.name}: applied`);
        if (!c.expect.applied) {
          assert.equal(fullTreeHash(ws.dir), before, `${c.name}: the tree is byte-identical`);
          return;
        }
        assert.deepEqual(sortFiles(r.files), [...(c.expect.files ?? [])].sort((a, b) => a[0].localeCompare(b[0])));
        assert.equal(fullTreeHash(ws.dir), expectedHash(c, () => false), `${c.name}: the tree is exactly the expected one`);
        // A created file gets ordinary permissions; an edited one keeps its own.
        assert.equal(statSync(path.join(ws.project, 'scripts', 'build.sh')).mode & 0o777, 0o755);
      } finally {
        ws.cleanup();
      }
    });
  }

  /** `fix-until-green apply` on a case: exit code and stdout, in-process or as a real process. */
  type Apply = (c: Case, ws: ReplyWorkspace) => Promise<{ status: number | null; stdout: string; stderr: string }>;

  const inProcess: Apply = async (c, ws) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: ApplyCliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), readStdin: async () => c.reply };
    const status = await main(['apply', '--cwd', ws.project, '--storage', ws.storage], io);
    return { status, stdout: out.join('\n'), stderr: err.join('\n') };
  };

  const realProcess: Apply = async (c, ws) => {
    const p = spawnSync(process.execPath, [path.join(REPO, 'dist', 'cli.js'), 'apply', '--cwd', ws.project, '--storage', ws.storage], { input: c.reply, encoding: 'utf8' });
    return { status: p.status, stdout: p.stdout, stderr: p.stderr };
  };

  async function sameThroughCli(c: Case, apply: Apply): Promise<void> {
    // The CLI's own checkpoints land in the storage; they are not part of the user's tree.
    const skip = (rel: string): boolean => /^project\/\.fix-until-green\/runs\/apply-/.test(rel);
    const ws = setup(c);
    try {
      const before = fullTreeHash(ws.dir, skip);
      const p = await apply(c, ws);
      assert.equal(p.status, c.expect.applied ? 0 : 1, `${c.name}: exit code; stderr: ${p.stderr}`);
      const out = JSON.parse(p.stdout) as { applied: boolean; files: FileSummary[]; errors: string[] };
      assert.equal(out.applied, c.expect.applied, c.name);
      checkErrors(c, out.errors);
      if (c.expect.applied) {
        assert.deepEqual(sortFiles(out.files), [...(c.expect.files ?? [])].sort((a, b) => a[0].localeCompare(b[0])), c.name);
        assert.equal(fullTreeHash(ws.dir, skip), expectedHash(c, skip), `${c.name}: exact expected tree`);
      } else {
        assert.equal(fullTreeHash(ws.dir, skip), before, `${c.name}: byte-identical tree`);
        assert.equal(existsSync(path.join(ws.storage, 'runs')) && readdirSync(path.join(ws.storage, 'runs')).some((n) => n.startsWith('apply-')), false, `${c.name}: no checkpoint for a refused reply`);
      }
    } finally {
      ws.cleanup();
    }
  }

  // The command's code, in-process: a process per case would prove nothing more.
  it('gives the same results through `fix-until-green apply`', async () => {
    for (const c of cases) await sameThroughCli(c, inProcess);
  });

  it('refuses, through `fix-until-green apply --stop-reason length`, a reply the provider cut off', async () => {
    const c = cases.find((x) => x.expect.applied)!;
    const ws = setup(c);
    try {
      const before = fullTreeHash(ws.dir);
      const out: string[] = [];
      const io: ApplyCliIo = { stdout: (t) => out.push(t), stderr: () => undefined, readStdin: async () => c.reply };
      const status = await main(['apply', '--cwd', ws.project, '--storage', ws.storage, '--stop-reason', 'length'], io);
      assert.equal(status, 1);
      const json = JSON.parse(out.join('\n')) as { applied: boolean; errors: string[] };
      assert.equal(json.applied, false);
      assert.match(json.errors[0]!, /the reply was cut off: the provider stopped it at the output limit \(stop reason `length`\)/);
      assert.equal(fullTreeHash(ws.dir), before);
    } finally {
      ws.cleanup();
    }
  });

  // The built bundle as a real process (stdin, stdout, exit code), on one applied and one refused reply.
  it('gives the same results through `fix-until-green apply` as a real process', async function () {
    this.timeout(300_000);
    assert.ok(existsSync(path.join(REPO, 'dist', 'cli.js')), 'dist/cli.js is built (npm run build)');
    const applied = cases.find((c) => c.expect.applied && (c.expect.files ?? []).length > 1)!;
    const refused = cases.find((c) => !c.expect.applied)!;
    for (const c of [applied, refused]) await sameThroughCli(c, realProcess);
  });
});
