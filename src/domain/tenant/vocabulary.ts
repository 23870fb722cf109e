/**
 * The closed vocabularies of a tenant's resources (drivers.md §1, §3). The migrations' CHECK
 * constraints hold the same lists.
 */

/** The kinds of Configuration there are. */
export const CONFIGURATION_KINDS = ["agent"] as const;
export type ConfigurationKind = (typeof CONFIGURATION_KINDS)[number];

/** The kinds of credential a ServiceAccount may reference. */
export const CREDENTIAL_KINDS = ["api_key", "oauth_token"] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];
