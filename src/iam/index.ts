/** Identity and authorization (control-plane.md §3). This barrel only re-exports. */
export * from "./api-key-secret.js";
export * from "./api-keys.js";
export * from "./authorizer.js";
export * from "./bindings.js";
export * from "./principals.js";
export * from "./restrictions.js";
export * from "./roles.js";
export * from "./external-identities.js";
export * from "./group-bindings.js";
export * from "./oidc-requests.js";
