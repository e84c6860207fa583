// Every workflow the worker runs; the worker bundles this file.
export { keyRotationGrace } from './key-rotation-grace';
export { campaignReview } from './campaign-review';
export { campaignCreation } from './campaign-creation';
export { backgroundJob } from './background-job';
export { externalSupplyImport } from './external-supply-import';
export { creativeReview } from './creative-review';
export { campaignLifecycle } from './campaign-lifecycle';
export { webhookDelivery } from './webhook-delivery';
