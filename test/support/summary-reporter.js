/**
 * Prints one plain closing line, `Tests: N passed, N failed, N skipped`, after
 * jest's own summary, so any reader of the run's last line gets the counts.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\nTests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
