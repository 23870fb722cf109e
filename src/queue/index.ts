/** The generic PostgreSQL work queue. This barrel only re-exports. */
export * from "./attach.js";
export * from "./claim.js";
export * from "./clock.js";
export * from "./enqueue.js";
export * from "./lease-renewal.js";
export * from "./policy.js";
export * from "./requeue.js";
export * from "./stats.js";
export * from "./transitions.js";
export * from "./work-items.js";
export * from "./work-listener.js";
export * from "./work-queue.js";
