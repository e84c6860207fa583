/**
 * A chat host for the SDK's browser tests: its page (the SDK's script-tag bundle, a slot
 * below the fold) and its backend, which asks the real auction through @chat-ads/node with
 * the secret publisher key and hands the answer to the page. On loopback, its own origin
 * (the trackers are another: the SDK's calls cross origins as a real host's do).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { bundleCore } from '../../scripts/build-sdk';
import { createAdClient, viewerOf, type AdRequest } from '../../sdk/node/src';

/** Where the slot starts: below a desktop viewport (900 px), so an ad is out of view until scrolled to. */
export const SLOT_TOP = 1500;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SDK test host</title>
<style nonce="t">body{margin:0;font-family:sans-serif}body.dark{background:#0d1117}#slot{width:420px;margin:0 16px}</style></head>
<body>
<div style="height:${SLOT_TOP}px"><button id="before">Before the ad</button></div>
<div id="slot"></div>
<div style="height:2000px"><button id="after">After the ad</button></div>
<script src="/chat-ads.js"></script>
<script nonce="t">
window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));
window.events = [];
window.show = async (request, options) => {
  const res = await fetch('/ad', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
  const answer = await res.json();
  const slot = document.getElementById('slot');
  slot.replaceChildren();
  window.handle = ChatAds.render(slot, answer, Object.assign({ debug: true, onEvent: (e) => window.events.push(e) }, options || {}));
  return answer;
};
</script>
</body></html>`;

const root = path.resolve(__dirname, '../..');

/** A React page: `<ChatAd>` (@chat-ads/react from source) mounted in #slot with the answer's promise; window.unmount() unmounts it. */
const REACT_APP = `
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { ChatAd } from '@chat-ads/react';
window.events = [];
const root = createRoot(document.getElementById('slot'));
window.mount = (request) => {
  const answer = fetch('/ad', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) }).then((r) => r.json());
  root.render(createElement(ChatAd, { answer, debug: true, onEvent: (e) => window.events.push(e) }));
  return answer;
};
window.unmount = () => root.render(null);
`;

async function bundleReactApp(): Promise<string> {
  const out = await build({
    stdin: { contents: REACT_APP, resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'iife',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    alias: { '@chat-ads/react': path.join(root, 'sdk/react/src/index.tsx'), '@chat-ads/sdk': path.join(root, 'sdk/core/src/index.ts') },
    write: false,
    logLevel: 'error',
  });
  return out.outputFiles[0].text;
}

export interface Host {
  url: string;
  close(): Promise<void>;
}

/**
 * The page is served under a strict content security policy (docs/sdk.md, what a host's CSP needs): no inline
 * style or script but the page's own (nonce), images from the tracker and https, requests to itself and the tracker.
 */
export async function startHost(auctionUrl: string, publisherKey: string, defaults: Partial<AdRequest>, trackingOrigin: string): Promise<Host> {
  const script = await bundleCore('iife');
  const reactApp = await bundleReactApp();
  const reactPage = PAGE.replace(/<script src="\/chat-ads.js"><\/script>[\s\S]*<\/body>/, '<script src="/react.js"></script>\n</body>');
  const csp = `default-src 'none'; script-src 'self' 'nonce-t'; style-src 'nonce-t'; img-src ${trackingOrigin} https:; connect-src 'self' ${trackingOrigin}`;
  const client = createAdClient({ auctionUrl, publisherKey });
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/') return res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': csp }).end(PAGE);
    if (req.method === 'GET' && req.url === '/react') return res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': csp }).end(reactPage);
    if (req.method === 'GET' && req.url === '/react.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(reactApp);
    if (req.method === 'GET' && req.url === '/chat-ads.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    if (req.method === 'POST' && req.url === '/ad') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        client
          .requestAd({ ...defaults, ...(JSON.parse(body) as Partial<AdRequest>) } as AdRequest, viewerOf(req))
          .then((answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)))
          .catch((err: Error) => res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: err.message })));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
