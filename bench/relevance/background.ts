/**
 * The background of domain/relevance/background.ts: ordinary conversations'
 * latest-exchange vectors (bench/signals' conversations, 308 in 11 languages,
 * written for another purpose and never labelled for relevance), their mean
 * and their principal directions by power iteration with deflation.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConversationReader } from '../../domain/understanding/conversation';
import type { TextEncoder } from '../../domain/understanding/encoder';
import { TEXT_MODEL } from '../../domain/understanding/text-model';
import type { Background } from '../../domain/relevance/background';

const DIRECTIONS = 16;
const ITERATIONS = 200;

export function fitBackground(encoder: TextEncoder): Background {
  const file = path.join(__dirname, '../signals/conversations.json');
  const conversations = JSON.parse(readFileSync(file, 'utf8')) as { m: string[] }[];
  // Every word tokenized first: a reading tokenizes only a few new words (NEW_WORDS_PER_READ), and the background must not depend on what was read before.
  for (const c of conversations) for (const m of c.m) encoder.encode(m);
  const reader = new ConversationReader(encoder);
  const vectors = conversations.map((c) => reader.read(c.m.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content }))).recent);
  const d = encoder.dims;
  const n = vectors.length;
  const mean = new Float64Array(d);
  for (const v of vectors) for (let j = 0; j < d; j++) mean[j] += v[j] / n;
  const cov = Array.from({ length: d }, () => new Float64Array(d));
  for (const v of vectors)
    for (let a = 0; a < d; a++) {
      const da = v[a] - mean[a];
      for (let b = 0; b < d; b++) cov[a][b] += (da * (v[b] - mean[b])) / n;
    }
  let total = 0;
  for (let a = 0; a < d; a++) total += cov[a][a];
  const directions: number[][] = [];
  const variances: number[] = [];
  for (let k = 0; k < DIRECTIONS; k++) {
    let u = Float64Array.from({ length: d }, (_, j) => Math.cos(j * (k + 1)));
    let variance = 0;
    for (let it = 0; it < ITERATIONS; it++) {
      const w = new Float64Array(d);
      for (let a = 0; a < d; a++) {
        let s = 0;
        for (let b = 0; b < d; b++) s += cov[a][b] * u[b];
        w[a] = s;
      }
      variance = Math.hypot(...w);
      u = w.map((x) => x / variance);
    }
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) cov[a][b] -= variance * u[a] * u[b];
    directions.push([...u].map(round));
    variances.push(round(variance));
  }
  const residual = (total - variances.reduce((s, v) => s + v, 0)) / (d - DIRECTIONS);
  return { tableVersion: TEXT_MODEL.tableVersion, mean: [...mean].map(round), directions, variances, residual: round(residual) };
}

const round = (x: number) => Number(x.toPrecision(6));
