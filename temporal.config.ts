const mainTaskQueue = process.env.TEMPORAL_TASK_QUEUE ?? 'adplatform-main';

/** Temporal address, namespace and task queues; from the environment with local defaults. */
export const temporalConfig = {
  address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  uiUrl: process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233',
  taskQueues: {
    /** Every workflow, activity and background job of the worker, but the creation saga. */
    main: mainTaskQueue,
    /**
     * The campaign-creation saga, polled by the worker and by each api process, which
     * starts the saga eagerly on it (worker/creation-worker.ts). Named after the main
     * queue, so a test's own queue has its own creation queue.
     */
    creation: process.env.TEMPORAL_CREATION_TASK_QUEUE ?? `${mainTaskQueue}-creation`,
  },
};
