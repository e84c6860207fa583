import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startApiProcess, startAuctionProcess, type ServiceProcess } from '../dev/processes';
import { SERVICE_NODE_FLAGS } from '../dev/node-flags';

/** dev/node-flags.ts: every flag is one this node takes, and the services run with theirs. */
const commandLine = (service: ServiceProcess) => readFileSync(`/proc/${service.child.pid}/cmdline`, 'utf8').split('\0');

describe('service node flags', () => {
  it.each(Object.entries(SERVICE_NODE_FLAGS))('%s: node accepts every flag', (_service, flags) => {
    const run = spawnSync(process.execPath, [...flags, '-e', '0'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('the api and the auction started as processes run with their flags', async () => {
    const [api, auction] = await Promise.all([startApiProcess({ NODE_ENV: 'test' }), startAuctionProcess({ NODE_ENV: 'test' })]);
    try {
      expect(commandLine(api)).toEqual(expect.arrayContaining(SERVICE_NODE_FLAGS.api));
      expect(commandLine(auction)).toEqual(expect.arrayContaining(SERVICE_NODE_FLAGS.auction));
    } finally {
      await Promise.all([api.stop(), auction.stop()]);
    }
  }, 90_000);
});
