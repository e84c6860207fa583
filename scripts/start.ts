/**
 * `npm start` after the bootstrap: runs api, worker and auction (and the local
 * Stripe emulator when no STRIPE_SECRET_KEY is set) in the foreground, prints
 * the URLs, and stops every child on Ctrl-C or when any of them dies. Each
 * service runs in a session of its own (dev/node-flags.ts, OWN_SESSION).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { config } from '../lib/config';
import { temporalConfig } from '../temporal.config';
import { STRIPE_EMULATOR_DEFAULT_URL } from '../lib/stripe';
import { OWN_SESSION, serviceNodeArgs } from '../dev/node-flags';
import { whenAnswering } from '../dev/answering';

const root = path.resolve(__dirname, '..');

const processes: Record<string, string> = {
  api: 'api/server.ts',
  worker: 'worker/main.ts',
  auction: 'auction/server.ts',
};
if (!process.env.STRIPE_SECRET_KEY) processes['stripe-emulator'] = 'dev/stripe-emulator/main.ts';
// The reference DSP (dev only): registers itself with the auction when no DSP is configured.
if (process.env.REFERENCE_DSP !== '0') processes['reference-dsp'] = 'dev/reference-dsp/main.ts';
// A chat host's page and backend with the SDK (docs/sdk.md).
processes['demo-chat'] = 'dev/demo-chat/main.ts';

const children: ChildProcess[] = [];
let stopping = false;

function stopAll(exitCode: number) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  const force = setTimeout(() => {
    for (const c of children) c.kill('SIGKILL');
    process.exit(exitCode);
  }, 10_000);
  force.unref();
  // Waiting for exits never rejects.
  void Promise.all(children.filter((c) => c.exitCode === null).map((c) => new Promise((r) => c.once('exit', r)))).then(() => process.exit(exitCode));
}

for (const [name, entry] of Object.entries(processes)) {
  const child = spawn(process.execPath, serviceNodeArgs(name, path.join(root, entry)), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], ...OWN_SESSION });
  const prefix = (line: string) => `[${name}] ${line}`;
  child.stdout.on('data', (d: Buffer) =>
    process.stdout.write(
      d
        .toString()
        .split(/\n(?=.)/)
        .map(prefix)
        .join('\n'),
    ),
  );
  child.stderr.on('data', (d: Buffer) =>
    process.stderr.write(
      d
        .toString()
        .split(/\n(?=.)/)
        .map(prefix)
        .join('\n'),
    ),
  );
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`[${name}] exited (${signal ?? code}); stopping everything`);
      stopAll(1);
    }
  });
  children.push(child);
}

// Each child is in a session of its own (OWN_SESSION): the terminal's Ctrl-C and hang-up reach only this process, which stops them.
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
process.on('SIGHUP', () => stopAll(0));

const demoChatPort = process.env.DEMO_CHAT_PORT ?? 3300;
/** The reference DSP bids on every conversation unless told otherwise: without this line no-fill never showing in development looked like a bug. */
function referenceDspLine(): string {
  if (!processes['reference-dsp']) return '  Ref. DSP     off (REFERENCE_DSP=0): only our own ads bid, so no-fill shows\n';
  const rate = Number(process.env.REFERENCE_DSP_NO_BID_RATE ?? 0);
  const bids = rate > 0 ? `bids on ${Math.round((1 - rate) * 100)}% of conversations` : 'bids on every conversation, so no ad request comes back empty';
  return `  Ref. DSP     http://${config.api.host}:${process.env.REFERENCE_DSP_PORT ?? 3200}   ${bids} (REFERENCE_DSP=0 turns it off, REFERENCE_DSP_NO_BID_RATE=0.5 halves it)\n`;
}
const local = (port: number | string, pathname: string) => `http://${config.api.host}:${port}${pathname}`;
console.log('Starting the services; their URLs follow once each answers.');
// Printed only once the api, the auction and the demo chat answer: earlier, a first request was refused.
void whenAnswering([local(config.api.port, '/healthz'), local(config.auction.port, '/healthz'), local(demoChatPort, '/')], () => stopping).then(
  (up) =>
    up &&
    console.log(`
  API          http://${config.api.host}:${config.api.port}   (OpenAPI: /v1/openapi.json)
  Auction      http://${config.api.host}:${config.auction.port}
  Metrics      http://${config.metrics.host}:${config.metrics.apiPort}/metrics (api), :${config.metrics.auctionPort}/metrics (auction)
  Temporal UI  ${temporalConfig.uiUrl}
  Demo chat    http://${config.api.host}:${demoChatPort}   (the SDK in a chat page: docs/sdk.md)
${referenceDspLine()}  Stripe       ${process.env.STRIPE_SECRET_KEY ? 'api.stripe.com (STRIPE_SECRET_KEY)' : `local emulator ${process.env.STRIPE_EMULATOR_URL ?? STRIPE_EMULATOR_DEFAULT_URL}`}
  Operator CLI bin/adctl
Press Ctrl-C to stop.
`),
);
