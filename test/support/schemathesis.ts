/**
 * Runs the schemathesis CLI (installed by the bootstrap) against one service's
 * OpenAPI document, bounded in time, and keeps its full output in test-output/.
 *
 * Only one summary line goes to the jest log: schemathesis closes with a
 * pytest-style banner ("==== 2 warnings in 100.07s ===="), and a reader of the
 * run's log must not mistake it for the suite's own closing line.
 */
import { execSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const SCHEMATHESIS = path.join(execSync(`python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'`).toString().trim(), 'schemathesis');

export interface SchemathesisRun {
  exitCode: number | null;
  casesGenerated: number;
  /** The "❌ check: count" lines of its failure summary. */
  failures: string[];
  /** Where the full output was written. */
  outputFile: string;
}

export async function runSchemathesis(options: {
  name: string;
  configFile: string;
  schemaUrl: string;
  baseUrl: string;
  maxSeconds: number;
  env: NodeJS.ProcessEnv;
}): Promise<SchemathesisRun> {
  // It writes .schemathesis/ into its working directory.
  const workDir = mkdtempSync(path.join(tmpdir(), `schemathesis-${options.name}-`));
  const args = [
    '--config-file',
    options.configFile,
    'run',
    options.schemaUrl,
    '--url',
    options.baseUrl,
    '--checks',
    'all',
    '--max-time',
    String(options.maxSeconds),
    '--no-color',
    '--seed',
    String(Date.now() % 100000),
  ];
  try {
    const { exitCode, output } = await new Promise<{ exitCode: number | null; output: string }>((resolve) => {
      const child = spawn(SCHEMATHESIS, args, { cwd: workDir, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        text += d.toString();
      });
      const kill = setTimeout(() => child.kill('SIGKILL'), (options.maxSeconds + 60) * 1000);
      child.on('exit', (code) => {
        clearTimeout(kill);
        resolve({ exitCode: code, output: text });
      });
    });
    const outputFile = path.join(__dirname, `../../test-output/${options.name}-schemathesis.txt`);
    mkdirSync(path.dirname(outputFile), { recursive: true });
    writeFileSync(outputFile, `${output}\nexit ${exitCode}\n`);
    const summary = /Test cases:\s*\n\s*(\d+) generated, (.*)/.exec(output);
    const failures = output.match(/^\s*❌ .*: \d+$/gm) ?? [];
    console.log(
      `${options.name} schemathesis: ${summary ? `${summary[1]} cases generated, ${summary[2]}` : 'no summary'}; exit ${exitCode}; full output in ${path.relative(process.cwd(), outputFile)}`,
    );
    return { exitCode, casesGenerated: Number(summary?.[1] ?? 0), failures, outputFile };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
