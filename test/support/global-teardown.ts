export default async function globalTeardown() {
  const running = globalThis.__testProcesses;
  if (!running) return;
  running.worker.kill('SIGTERM');
  await new Promise((resolve) => {
    if (running.worker.exitCode !== null) return resolve(null);
    const force = setTimeout(() => running.worker.kill('SIGKILL'), 10_000);
    running.worker.once('exit', () => { clearTimeout(force); resolve(null); });
  });
  await running.closeStripe();
}
