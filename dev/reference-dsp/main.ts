/** `npx tsx dev/reference-dsp/main.ts [--port P] [--latency MS] [--price USD] [--fault F] [--creative K] [--key K]` */
import { parseArgs } from 'node:util';
import { startReferenceDsp, type CreativeKind, type Fault } from './server';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '3200' }, latency: { type: 'string' }, price: { type: 'string' }, 'no-bid-rate': { type: 'string' },
    fault: { type: 'string' }, creative: { type: 'string' }, key: { type: 'string' },
  },
});
startReferenceDsp({
  ...(values.latency ? { latencyMs: Number(values.latency) } : {}),
  ...(values.price ? { price: Number(values.price) } : {}),
  ...(values['no-bid-rate'] ? { noBidRate: Number(values['no-bid-rate']) } : {}),
  ...(values.fault ? { fault: values.fault as Fault } : {}),
  ...(values.creative ? { creative: values.creative as CreativeKind } : {}),
  ...(values.key ? { key: values.key } : {}),
}, Number(values.port)).then((dsp) => {
  console.log(`reference DSP on ${dsp.url}: native bid ${dsp.url}/native/bid, render ${dsp.url}/native/render, OpenRTB ${dsp.url}/openrtb`);
});
