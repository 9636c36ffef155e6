// What a run says: each job's output as it ends, under a line with its time, then where the
// time went and the counts, ending on the line CI reads ("N passed, N failed, N skipped").

/** The counts node's spec reporter prints last (`ℹ pass 12`); none for a job that is no test. */
function countsOf(output) {
  const count = (name) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
  if (!/^ℹ tests \d+$/m.test(output)) return undefined;
  return {
    passed: count('pass'),
    failed: count('fail') + count('cancelled'),
    skipped: count('skipped') + count('todo'),
  };
}

/** Whether the job passed, and why not. */
function verdict(result) {
  const problems = [];
  if (result.timedOut) problems.push(`ended after its deadline`);
  else if (result.status !== 0) problems.push(`exit ${result.status ?? result.signal}`);
  if (result.left.length > 0) {
    problems.push(`left running: ${result.left.map((p) => `${p.pid} ${p.command}`).join('; ')}`);
  }
  return problems;
}

const seconds = (value) => `${value.toFixed(1)} s`;

export function printResult(result, out) {
  const problems = verdict(result);
  const outcome = problems.length ? 'FAILED' : 'passed';
  out.write(`\n── ${result.job.name}: ${outcome} in ${seconds(result.seconds)}\n`);
  out.write(result.output.endsWith('\n') || !result.output ? result.output : `${result.output}\n`);
  for (const problem of problems) out.write(`✖ ${result.job.name}: ${problem}\n`);
}

/** The summary: the slowest jobs, each group's time, the failures, then the counts. */
export function printSummary(results, { wallSeconds, capacity }, out) {
  const byTime = [...results].sort((a, b) => b.seconds - a.seconds);
  out.write(`\nSlowest jobs:\n`);
  for (const result of byTime.slice(0, 15)) {
    out.write(`  ${seconds(result.seconds).padStart(8)}  ${result.job.name}\n`);
  }
  const groups = new Map();
  for (const result of results) {
    groups.set(result.job.group, (groups.get(result.job.group) ?? 0) + result.seconds);
  }
  out.write(`Time in jobs by run (jobs overlap; ${capacity} at once):\n`);
  for (const [group, total] of groups) out.write(`  ${seconds(total).padStart(8)}  ${group}\n`);
  out.write(`Wall time: ${seconds(wallSeconds)} for ${results.length} jobs\n`);

  const total = { passed: 0, failed: 0, skipped: 0 };
  const failedJobs = [];
  for (const result of results) {
    const counts = countsOf(result.output);
    const problems = verdict(result);
    if (counts) for (const key of Object.keys(total)) total[key] += counts[key];
    // A job that failed without a failing test (a crash, a leftover, lint) counts as one.
    if (problems.length > 0) {
      failedJobs.push(`${result.job.name}: ${problems.join('; ')}`);
      if (!counts?.failed) total.failed += 1;
    }
  }
  if (failedJobs.length > 0) out.write(`Failed:\n${failedJobs.map((f) => `  ${f}\n`).join('')}`);
  out.write(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
  return total.failed === 0;
}
