/**
 * Prints one plain closing line, `Tests: N passed, N failed, N skipped`, as the
 * very last line of the run (after jest's own summary), so any reader of the
 * run's closing line gets the counts.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `Tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    process.once('exit', () => process.stdout.write(line));
  }
}
module.exports = SummaryReporter;
