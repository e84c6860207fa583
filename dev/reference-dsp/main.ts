/**
 * The reference DSP as a process (started by `npm start` unless REFERENCE_DSP=0):
 *   npx tsx dev/reference-dsp/main.ts [--port P] [--latency MS] [--price USD] [--no-bid-rate R]
 *                                     [--fault F] [--creative K] [--key K] [--no-register]
 * Unless --no-register, when the database has no enabled DSP it registers itself twice
 * (native and OpenRTB) so that the auction has demand in dev. It bids on every conversation
 * unless told otherwise (REFERENCE_DSP_NO_BID_RATE, or --no-bid-rate): no-fill then shows only
 * with REFERENCE_DSP=0 or a no-bid rate (`npm start` says so).
 */
import { parseArgs } from 'node:util';
import { createDb } from '../../lib/db';
import { addDsp } from '../../domain/dsps';
import { startReferenceDsp, type CreativeKind, type Fault } from './server';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.REFERENCE_DSP_PORT ?? '3200' },
    latency: { type: 'string' },
    price: { type: 'string' },
    'no-bid-rate': { type: 'string', default: process.env.REFERENCE_DSP_NO_BID_RATE },
    fault: { type: 'string' },
    creative: { type: 'string' },
    key: { type: 'string', default: 'dev-reference-dsp-key' },
    'no-register': { type: 'boolean' },
  },
});

async function register(url: string, key: string) {
  const db = createDb(undefined, 1);
  try {
    if ((await db.dsp.count({ where: { enabled: true } })) > 0) return 'DSPs already configured: not registered';
    await addDsp(db, { name: 'reference-native', protocol: 'native', bidUrl: `${url}/native/bid`, renderUrl: `${url}/native/render`, key });
    await addDsp(db, { name: 'reference-openrtb', protocol: 'openrtb', bidUrl: `${url}/openrtb`, key });
    return "registered as the auction's DSPs (native and OpenRTB)";
  } finally {
    await db.$disconnect();
  }
}

startReferenceDsp(
  {
    key: values.key,
    ...(values.latency ? { latencyMs: Number(values.latency) } : {}),
    ...(values.price ? { price: Number(values.price) } : {}),
    ...(values['no-bid-rate'] ? { noBidRate: Number(values['no-bid-rate']) } : {}),
    ...(values.fault ? { fault: values.fault as Fault } : {}),
    ...(values.creative ? { creative: values.creative as CreativeKind } : {}),
  },
  Number(values.port),
)
  .then(async (dsp) => {
    const note = values['no-register'] ? 'not registered (--no-register)' : await register(dsp.url, values.key);
    console.log(`reference DSP on ${dsp.url} (native bid /native/bid, render /native/render, OpenRTB /openrtb): ${note}`);
    const stop = () => {
      void dsp.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })
  .catch((err: unknown) => {
    console.error(`reference DSP failed to start: ${(err as Error).message}`);
    process.exit(1);
  });
