import { Client, Connection } from '@temporalio/client';
import { temporalConfig } from '../temporal.config';

/** A Temporal client; the connection is made lazily on first use. */
export function createTemporalClient(address = temporalConfig.address): Client {
  const connection = Connection.lazy({ address });
  return new Client({ connection, namespace: temporalConfig.namespace });
}
