import { dot } from '../understanding/encoder';
import background from './background.json';

/**
 * How near ordinary conversations come to a group's topic, so that a group's
 * similarity to a conversation is read against it (a z-score): some topics are
 * near every conversation ("hubs": home, family, money) and others near none,
 * so one similarity means more for one group than for another. The mean and
 * the principal directions (with their variances) of ordinary conversations'
 * vectors, fitted by `bench/relevance/train.ts --background` from conversations
 * that are not the labelled set's (docs/relevance.md); a profile reads them
 * once, when it is made.
 */
export interface Background {
  /** The table it was fitted with (a new table needs a new background). */
  tableVersion: number;
  mean: number[];
  directions: number[][];
  variances: number[];
  /** The variance per dimension left outside the directions. */
  residual: number;
}

export const BACKGROUND: Background = background;
const mean = Float32Array.from(BACKGROUND.mean);
const directions = BACKGROUND.directions.map((d) => Float32Array.from(d));

/** The mean and the spread (standard deviation) of ordinary conversations' similarity to a unit vector. */
export function backgroundOf(topic: Float32Array): { mean: number; spread: number } {
  let variance = 0;
  let along = 0;
  directions.forEach((d, k) => {
    const s = dot(d, topic);
    variance += BACKGROUND.variances[k] * s * s;
    along += s * s;
  });
  variance += BACKGROUND.residual * Math.max(0, 1 - along);
  return { mean: dot(mean, topic), spread: Math.sqrt(variance) || 1 };
}
