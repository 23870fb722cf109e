/**
 * A small installed Compute Driver (control-plane.md §7), loaded by `occ` through the
 * Installation configuration `drivers.compute: {module: <this file>}` exactly as an operator's
 * module would be: plain JavaScript, no import from OCC, exporting `createComputeDriver`.
 *
 * It stands for a non-Kubernetes backend (e.g. Docker): every tenant is "placed" in a
 * workspace named after its ID, with a UID derived from it, and nothing is written anywhere,
 * so a test can tell from the recorded placement that this module — not the bundled driver —
 * ran the pass.
 */

/** The name and UID this driver reports for a tenant. */
export const placementOf = (namespaceId) => ({
  namespaceName: `installed-${namespaceId.slice(3, 15).toLowerCase()}`,
  // A UID has the form of a Kubernetes UID (a UUID): the tenant ID's own.
  uid: namespaceId.slice(3),
});

export function createComputeDriver(config) {
  if (config?.drivers?.compute?.module === undefined) {
    throw new Error("installed-compute: expected to be selected by drivers.compute.module");
  }
  return {
    async ensureNamespace(input) {
      return { outcome: "ready", ...placementOf(input.namespaceId) };
    },
    async deleteNamespace() {
      return { outcome: "deleted" };
    },
  };
}
