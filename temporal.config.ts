/** Temporal address, namespace and task queues; from the environment with local defaults. */
export const temporalConfig = {
  address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  uiUrl: process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233',
  taskQueues: {
    /** Every workflow, activity and background job of the worker. */
    main: process.env.TEMPORAL_TASK_QUEUE ?? 'adplatform-main',
  },
};
