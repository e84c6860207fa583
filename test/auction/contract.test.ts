/**
 * The auction's OpenAPI document says exactly what it accepts: schemathesis
 * (installed by the bootstrap) runs every check against a real auction
 * instance on loopback, bounded in time. 0 failures is the bar.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { startAuction, type AuctionHarness } from './support';

const SCHEMATHESIS = path.join(execSync(`python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'`).toString().trim(), 'schemathesis');
const MAX_SECONDS = Number(process.env.CONTRACT_MAX_SECONDS ?? 30);

let h: AuctionHarness;
let workDir: string;
// No in-house demand (closed budget gate) and no DSPs: the run tests the contract, not the market.
beforeAll(async () => { h = await startAuction({ budget: { mayServe: () => false } }); workDir = mkdtempSync(path.join(tmpdir(), 'schemathesis-auction-')); });
afterAll(async () => { await h.close(); rmSync(workDir, { recursive: true, force: true }); });

test('schemathesis against GET /v1/openapi.json of the auction: every check, 0 failures', async () => {
  const output: string = await new Promise((resolve) => {
    const child = spawn(SCHEMATHESIS, [
      '--config-file', path.join(__dirname, 'schemathesis.toml'),
      'run', `${h.url}/v1/openapi.json`, '--url', h.url, '--checks', 'all', '--max-time', String(MAX_SECONDS), '--no-color', '--seed', String(Date.now() % 100000),
    ], { cwd: workDir, env: { ...process.env, CONTRACT_PUBLISHER_KEY: h.publisherKey }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => { text += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { text += d.toString(); });
    const kill = setTimeout(() => child.kill('SIGKILL'), (MAX_SECONDS + 60) * 1000);
    child.on('exit', (code) => { clearTimeout(kill); resolve(`${text}\nexit ${code}`); });
  });
  mkdirSync(path.join(__dirname, '../../test-output'), { recursive: true });
  writeFileSync(path.join(__dirname, '../../test-output/auction-schemathesis.txt'), output);
  const summary = /Test cases:\s*\n\s*(\d+) generated, (.*)/.exec(output);
  console.log(`auction schemathesis: ${summary ? `${summary[1]} cases generated, ${summary[2]}` : 'no summary'}\n${output.split('\n').slice(-30).join('\n')}`);
  expect({ exit: /exit (\d+)$/.exec(output)?.[1], failures: output.match(/^\s*❌ .*: \d+$/gm) ?? [] }).toEqual({ exit: '0', failures: [] });
  expect(Number(summary?.[1] ?? 0)).toBeGreaterThan(20);
}, (MAX_SECONDS + 120) * 1000);
