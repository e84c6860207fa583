/**
 * lib/temporal.ts: every RPC without a deadline of its own gets one, so a
 * Temporal server that accepts connections and never answers cannot hold a
 * request forever.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { defaultDeadlineInterceptor } from '../lib/temporal';

let blackHole: Server;
const sockets = new Set<Socket>();
beforeAll(async () => {
  blackHole = createServer((socket) => {
    sockets.add(socket);
  }); // accepts, never answers
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => blackHole.close(resolve));
});

test('an RPC to a server that never answers fails with DEADLINE_EXCEEDED instead of hanging', async () => {
  const connection = Connection.lazy({
    address: `127.0.0.1:${(blackHole.address() as AddressInfo).port}`,
    interceptors: [defaultDeadlineInterceptor(300)],
  });
  const client = new Client({ connection });
  try {
    const err = await client.workflow.start('anyWorkflow', { taskQueue: 'nowhere', workflowId: `deadline-${Date.now()}` }).then(
      () => null,
      (e: unknown) => e as { cause?: { code?: number } },
    );
    expect(err?.cause?.code).toBe(4); // gRPC DEADLINE_EXCEEDED: the bound ended it, nothing else could
    expect(sockets.size).toBeGreaterThan(0); // it really reached the server
  } finally {
    await connection.close().catch(() => undefined);
  }
});
