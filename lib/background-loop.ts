/**
 * A background job of a process: runs `work`, waits `intervalMs`, runs it
 * again, until stopped. A failure is logged and the loop goes on. Never two
 * runs at once; `stop()` waits for the one in progress.
 */
export interface BackgroundLoop {
  /** Runs the work now (after the run in progress) and resolves when it is done; a failure is thrown. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export function startBackgroundLoop(label: string, work: () => Promise<unknown>, intervalMs: number): BackgroundLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  const run = () => {
    const next = running.then(() => work()).then(() => undefined);
    running = next.catch(() => undefined);
    return next;
  };
  const tick = () => {
    timer = null;
    run()
      .catch((err: Error) => console.error(JSON.stringify({ level: 'error', msg: `${label} failed`, error: err.message })))
      .finally(() => { if (!stopped) timer = setTimeout(tick, intervalMs); });
  };
  timer = setTimeout(tick, intervalMs);

  return {
    runNow: run,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
