/**
 * The status subresource written by hand, standing in for the controllers the test cluster
 * lacks (a Deployment's `Available` condition, as envtest projects do). Not part of the
 * product port (`ObjectWriter` has no status write): the same transport as the real client.
 */
import {
  objectPath,
  parseKindObject,
  RequestCounter,
  type Kind,
  type KindObject,
  type KubeAccess,
  type ObjectRef,
} from "../../src/drivers/kubernetes/client/index.js";
import { KubeTransport } from "../../src/drivers/kubernetes/client/transport.js";

export interface StatusWriter {
  /** A merge patch of `kind` `ref`'s status subresource. */
  patchStatus<K extends Kind>(kind: K, ref: ObjectRef, patch: unknown): Promise<KindObject<K>>;
  close(): void;
}

/** A status writer as the identity of `kc`. */
export function statusWriter(kc: KubeAccess): StatusWriter {
  const t = new KubeTransport(kc, { counter: new RequestCounter() });
  return {
    async patchStatus<K extends Kind>(kind: K, ref: ObjectRef, patch: unknown) {
      const res = await t.call({
        verb: "patch",
        method: "PATCH",
        path: `${objectPath(kind, ref)}/status?fieldManager=occ-test`,
        body: patch,
        contentType: "application/merge-patch+json",
      });
      return parseKindObject(kind, res, ref);
    },
    close: () => {
      t.close();
    },
  };
}
