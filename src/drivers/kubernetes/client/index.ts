export * from "./errors.js";
export * from "./kind-objects.js";
export * from "./kinds.js";
export * from "./kubeconfig.js";
export * from "./object-client.js";
export * from "./request-counter.js";
export * from "./rate-limiter.js";
