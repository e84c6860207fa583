import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client';
import { temporalConfig } from '../temporal.config';
import { config } from './config';

type GrpcInterceptor = NonNullable<ConnectionOptions['interceptors']>[number];

/** The long poll behind `handle.result()`: its callers bound it themselves (workflows/clients/campaign-creation.ts). */
const LONG_POLL_METHODS = new Set(['/temporal.api.workflowservice.v1.WorkflowService/GetWorkflowExecutionHistory']);

/**
 * Every RPC without a deadline of its own gets `rpcTimeoutMs`, so no call waits
 * on an unresponsive server forever; a caller's `withDeadline`/`withAbortSignal`
 * still wins. Long polls are left to their callers.
 */
export function defaultDeadlineInterceptor(rpcTimeoutMs: number): GrpcInterceptor {
  return (options, nextCall) => {
    const unset = options.deadline === undefined || options.deadline === Infinity;
    const path = options.method_definition?.path;
    const bounded = !unset || (path && LONG_POLL_METHODS.has(path)) ? options : { ...options, deadline: Date.now() + rpcTimeoutMs };
    // grpc-js only uses the interface of the returned call; its type asks for the class.
    return nextCall(bounded) as ReturnType<GrpcInterceptor>;
  };
}

/** A Temporal client; the connection is made lazily on first use, every RPC has a deadline. */
export function createTemporalClient(address = temporalConfig.address): Client {
  const connection = Connection.lazy({
    address,
    connectTimeout: config.timeouts.temporalConnectMs,
    // Passing interceptors replaces the SDK's default list, so its retry interceptor is kept
    // explicitly; the deadline comes first so that it bounds all retries of a call together.
    interceptors: [defaultDeadlineInterceptor(config.timeouts.temporalRpcMs), makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
  });
  return new Client({ connection, namespace: temporalConfig.namespace });
}
