import { proxyLocalActivities } from '@temporalio/workflow';

const { step } = proxyLocalActivities<{ step(): Promise<number> }>({ startToCloseTimeout: '10 seconds' });

/** One local activity and an answer: a start's dispatch cost with the least work around it. */
export async function oneLocalStep(): Promise<number> {
  return step();
}
