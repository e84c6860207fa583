import { spawn } from 'node:child_process';
import { OWN_SESSION } from '../../dev/node-flags';
import { endWithParent } from '../../dev/processes';
import { nameProcessRole } from './machine-cpu';

/**
 * A bench's floor: a bare Node HTTP server in its own process that reads the request and answers
 * `status` at once, with no work of the service. Load on it shows what the machine and the load
 * generator alone put into the latencies (bench/history.md, "events").
 */
export async function startBareFloor(status: number): Promise<{ port: number; stop(): void }> {
  const script = `require('http').createServer((req, res) => { req.resume(); req.on('end', () => { res.statusCode = ${status}; res.end(); }); })
    .listen(0, '127.0.0.1', function () { console.log('port ' + this.address().port); });`;
  // Spawned as the services are (in a session of its own), so the floor meets the machine as they do.
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], ...OWN_SESSION });
  endWithParent(child);
  nameProcessRole(child.pid!, 'floor');
  const port = await new Promise<number>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
  });
  return { port, stop: () => child.kill('SIGKILL') };
}
