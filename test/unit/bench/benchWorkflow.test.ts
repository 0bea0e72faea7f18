// The README's GitHub Actions workflow for sharded benches, read by GitHub's own workflow parser
// (@actions/workflow-parser, the one behind the Actions language service): no schema error, the
// matrix of shards, an artifact per shard, a merge job that writes the job summary.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../../support/fixtures';

function readmeWorkflow(): string {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```yaml\n([^]*?)```/g)].map((m) => m[1]!);
  const wf = blocks.find((b) => b.includes('bench merge'));
  assert.ok(wf, 'the README has a yaml block with the bench workflow');
  return wf;
}

async function errorsOf(content: string): Promise<{ errors: string[]; jobs: { id: string; needs: string[]; strategy: boolean }[] }> {
  const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await import('@actions/workflow-parser');
  const parsed = parseWorkflow({ name: 'bench.yml', content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (!parsed.value) return { errors, jobs: [] };
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  errors.push(...(template.errors ?? []).map((e) => e.Message));
  const jobs = (template.jobs ?? []).map((j) => ({ id: j.id.value, needs: (('needs' in j ? j.needs : undefined) ?? []).map((n) => n.value), strategy: 'strategy' in j && j.strategy !== undefined }));
  return { errors, jobs };
}

describe('bench: the README workflow', () => {
  it('is a valid GitHub Actions workflow: plan, a matrix of shards, a merge that writes the summary', async () => {
    const wf = readmeWorkflow();
    const { errors, jobs } = await errorsOf(wf);
    assert.deepEqual(errors, []);
    assert.deepEqual(jobs.map((j) => [j.id, j.needs, j.strategy]), [['plan', [], false], ['shard', ['plan'], true], ['merge', ['shard'], false]]);
    assert.match(wf, /--shard \$\{\{ matrix\.shard \}\}\/4/);
    assert.match(wf, /name: bench-results-\$\{\{ matrix\.shard \}\}/);
    assert.match(wf, /GITHUB_STEP_SUMMARY/);
  });

  it('the parser does reject a broken workflow (the check can fail)', async () => {
    const { errors } = await errorsOf(readmeWorkflow().replace('needs: plan', 'needs: nosuchjob').replace('runs-on: ubuntu-latest', 'runs-on: [ubuntu-latest]\n    bogus-key: 1'));
    assert.ok(errors.length > 0);
  });
});
