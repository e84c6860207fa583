/**
 * Memory and time of image-heavy ad group creates (issue 7, item 1), measured
 * on the api process (`api/server.ts`, its own process over the real
 * PostgreSQL): peak resident memory above its idle level while the request
 * runs, and the request's latency.
 *
 *  - `many_ads`: one 4.9 MB PNG upload referenced by BENCH_ADS (400) ads in
 *    one POST /v1/ad_groups (the issue's request; refused by the caps now);
 *  - `largest`: the largest request the caps accept: MAX_ADS_PER_AD_GROUP ads
 *    spread over MAX_DISTINCT_IMAGES_PER_REQUEST distinct 4.9 MB uploads.
 *  - floor: an ad group of one text-only ad, the bare cost of the route.
 *
 *   npm run bench:ad-group-images
 */
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { startApiProcess } from '../dev/processes';
import { createDb } from '../lib/db';
import { createOrganization } from '../domain/organizations/service';
import { MAX_ADS_PER_AD_GROUP, MAX_DISTINCT_IMAGES_PER_REQUEST } from '../domain/caps';

/** Resident memory of a process and all its descendants (tsx runs node as a child), in bytes. */
function treeRss(pid: number): number {
  let rss = 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    rss += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of children ? children.split(/\s+/) : []) rss += treeRss(Number(child));
    }
  } catch {
    /* the process went away */
  }
  return rss;
}

/** A noisy PNG of about 4.9 MB (random pixels do not compress). */
async function bigPng(seed: number): Promise<Buffer> {
  const width = 1280,
    height = 1275;
  const raw = Buffer.alloc(width * height * 3);
  let x = (seed * 2654435761) >>> 0;
  for (let i = 0; i < raw.length; i++) {
    x = (x * 1664525 + 1013904223) >>> 0;
    raw[i] = x >>> 24;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

async function main() {
  const ads = Number(process.env.BENCH_ADS ?? 400);
  const db = createDb();
  const api = await startApiProcess();
  const org = await createOrganization(db, {
    name: `bench images ${Date.now()}`,
    domain: 'bench.example',
    paymentMethodId: 'pm_card_visa',
    withAdAccount: true,
  });
  const account = await db.adAccount.findFirstOrThrow({ where: { organization: { publicId: org.org_public_id } } });
  const campaign = await db.campaign.create({
    data: {
      organizationId: account.organizationId,
      adAccountId: account.id,
      name: `bench images ${Date.now()}`,
      startTime: new Date(Date.now() + 2 * 86_400_000),
      lifetimeSpendLimitMicros: 5_000_000n,
      recurringFrequency: 'daily',
      pricingModel: 'cpm',
      targetCountries: [],
    },
  });
  const headers = { authorization: `Bearer ${org.api_key}` };

  const upload = async (bytes: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'big.png');
    const res = await fetch(`${api.url}/v1/upload`, { method: 'POST', headers, body: form });
    if (res.status !== 200 && res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { file_id: string }).file_id;
  };

  /** One POST /v1/ad_groups; its status, latency and the api's peak memory above idle. */
  const measure = async (fileIds: (string | null)[]) => {
    await new Promise((r) => setTimeout(r, 500));
    const idle = treeRss(api.child.pid!);
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, treeRss(api.child.pid!));
    }, 20);
    const started = performance.now();
    const res = await fetch(`${api.url}/v1/ad_groups`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        campaign_id: campaign.id,
        name: `g ${Date.now()}`,
        context_hints: ['running'],
        ads: fileIds.map((fileId, i) => ({ creative: { type: 'chat_card', title: `Ad ${i}`, ...(fileId ? { file_id: fileId } : {}) } })),
      }),
    });
    const body = await res.text();
    const ms = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, treeRss(api.child.pid!));
    return { status: res.status, ms, rssMiB: (peak - idle) / 2 ** 20, code: res.status === 201 ? '' : JSON.parse(body).error?.code };
  };

  const show = (label: string, r: Awaited<ReturnType<typeof measure>>) =>
    console.log(`${label.padEnd(10)} status ${r.status}${r.code ? ` ${r.code}` : ''}   ${r.ms.toFixed(0)} ms   peak RSS +${r.rssMiB.toFixed(0)} MiB`);

  await measure([null]); // warm-up (connections, JIT): not counted
  const floor = await measure([null]);
  show('floor', floor);

  const first = await upload(await bigPng(1));
  const many = await measure(Array.from({ length: ads }, () => first));
  show(`${ads} ads`, many);

  const distinct = [first];
  for (let i = 1; i < MAX_DISTINCT_IMAGES_PER_REQUEST; i++) distinct.push(await upload(await bigPng(i + 1)));
  const largest = await measure(Array.from({ length: MAX_ADS_PER_AD_GROUP }, (_, i) => distinct[i % distinct.length]));
  show('largest', largest);

  await api.stop();
  await db.$disconnect();
  console.log(
    `ad-group-images many_ads=${ads} many_status=${many.status} many_ms=${many.ms.toFixed(0)} many_rss_mib=${many.rssMiB.toFixed(0)} largest_ads=${MAX_ADS_PER_AD_GROUP} largest_images=${MAX_DISTINCT_IMAGES_PER_REQUEST} largest_status=${largest.status} largest_ms=${largest.ms.toFixed(0)} largest_rss_mib=${largest.rssMiB.toFixed(0)} floor_ms=${floor.ms.toFixed(0)} floor_rss_mib=${floor.rssMiB.toFixed(0)}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
