/**
 * Prints one plain closing line, `Tests: N passed, M failed, K skipped`, as the
 * very last line of the run (after jest's own summary), so any reader of the
 * run's closing line gets the counts.
 *
 * "failed" counts failed tests plus every failure outside a test, each once per
 * test file: a file that could not run (syntax error, failed import), a hook that
 * threw or timed out (afterAll), an unhandled error. jest reports those on the
 * file, not on a test, so counting failed tests alone would print "0 failed"
 * for a red run.
 */
function failuresOutsideTests(results) {
  return results.testResults.filter((file) => file.numFailingTests === 0 && (file.testExecError != null || Boolean(file.failureMessage)));
}

function summaryLine(results) {
  const outside = failuresOutsideTests(results);
  let failed = results.numFailedTests + outside.length;
  // jest sets results.success only after the reporters ran; an interrupted run is red too.
  if (failed === 0 && results.wasInterrupted) failed = 1;
  const skipped = results.numPendingTests + results.numTodoTests;
  return { outside, line: `Tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped` };
}

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { outside, line } = summaryLine(results);
    const notes = outside.map((file) => `Failed outside its tests: ${file.testFilePath}\n`).join('');
    process.once('exit', () => process.stdout.write(`${notes}${line}\n`));
  }
}
module.exports = SummaryReporter;
module.exports.summaryLine = summaryLine;
