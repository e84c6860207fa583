/**
 * The demo chat `npm start` serves (dev only; docs/sdk.md): a chat host's page and backend in
 * one small process. The page streams a canned assistant reply, preloads an ad while it
 * streams and shows it with the browser SDK once the reply is complete; the backend asks the
 * local auction through @chat-ads/node with a publisher key of its own, which never leaves
 * this process (kept in .data/demo-chat.json, recreated when the database no longer has it).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { bundleCore } from '../../scripts/build-sdk';
import { createAdClient, viewerOf, type AdRequest } from '../../sdk/node/src';
import { createPublisher } from '../../domain/publishers';
import { config } from '../../lib/config';
import { createDb } from '../../lib/db';
import { hashSecret } from '../../lib/secrets';

const root = path.resolve(__dirname, '../..');
const KEY_FILE = process.env.DEMO_CHAT_KEY_FILE ?? path.join(root, '.data/demo-chat.json');
const DEMO_CHAT_PORT = Number(process.env.DEMO_CHAT_PORT ?? 3300);
const MAX_BODY = 64 * 1024;

/** The demo's publisher key: the one kept from an earlier run while the database still knows it, else a new one. */
async function publisherKey(): Promise<string> {
  const db = createDb(undefined, 1);
  try {
    if (existsSync(KEY_FILE)) {
      const { publisher_key } = JSON.parse(readFileSync(KEY_FILE, 'utf8')) as { publisher_key: string };
      if (await db.publisher.findFirst({ where: { keyHash: hashSecret(publisher_key) } })) return publisher_key;
    }
    const created = await createPublisher(db, { name: 'Demo chat (npm start)', domain: '127.0.0.1' });
    mkdirSync(path.dirname(KEY_FILE), { recursive: true });
    writeFileSync(KEY_FILE, JSON.stringify(created), { mode: 0o600 });
    return created.publisher_key;
  } finally {
    await db.$disconnect();
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
      if (body.length > MAX_BODY) reject(new Error('body too large'));
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

async function main() {
  const page = readFileSync(path.join(__dirname, 'page.html'), 'utf8');
  const script = await bundleCore('iife');
  const client = createAdClient({ auctionUrl: `http://127.0.0.1:${config.auction.port}`, publisherKey: await publisherKey() });
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    if (req.method === 'GET' && req.url === '/chat-ads.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    if (req.method !== 'POST' || req.url !== '/ad') return json(res, 404, { error: 'not found' });
    readBody(req)
      .then(async (raw) => {
        const { chatId, userId, messages, timezone, prefetched } = JSON.parse(raw) as Partial<AdRequest>;
        const device = /Mobi/.test(req.headers['user-agent'] ?? '') ? 'mobile' : 'desktop';
        const request = {
          userId: String(userId),
          chatId: String(chatId),
          messages,
          prefetched: prefetched === true,
          country_code: 'US',
          device,
          timezone: timezone ?? 'UTC',
          ad_formats: ['sponsored_message', 'sponsored_carousel', 'poll'],
        } as AdRequest;
        json(res, 200, await client.requestAd(request, viewerOf(req)));
      })
      .catch((err: Error) => json(res, 502, { error: err.message }));
  });
  server.listen(DEMO_CHAT_PORT, config.api.host, () => console.log(`demo chat listening on http://${config.api.host}:${DEMO_CHAT_PORT}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(`demo chat failed: ${(err as Error).message}`);
  process.exit(1);
});
