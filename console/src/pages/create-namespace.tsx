/**
 * Create a Namespace: managed by default (OCC creates `oce-<hash>`), or an existing,
 * operator-owned Kubernetes namespace selected by name — suggested from the selectable ones,
 * with its preflight (every failing requirement with its fix) shown before submitting. The API decides; its refusal is shown
 * as it said it, and an accepted Namespace opens on its own page, where its placement checks
 * appear as the worker makes them (each failing requirement with its fix).
 */
import { useState } from "preact/hooks";
import { api, type WhoAmIView } from "../api.js";
import { navigate } from "../router.js";
import { Field, Link, Refusal } from "../ui.js";
import { openAccepted } from "./namespace.js";
import { Preflight, SelectableNamespaces } from "./preflight.js";

const DNS_LABEL = "[a-z0-9]([\\-a-z0-9]*[a-z0-9])?";

export function CreateNamespace(props: { who: WhoAmIView }) {
  const [name, setName] = useState("");
  const [mode, setMode] = useState<"managed" | "external">("managed");
  const [existing, setExisting] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const administrator = props.who.installationPermissions.includes("installation:administer");

  const submit = (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body = mode === "external" ? { name, existingNamespace: existing } : { name };
    api.createNamespace(body).then(
      (created) => {
        openAccepted(created);
        navigate(`/namespaces/${created.id}`);
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };

  return (
    <main id="main" tabIndex={-1}>
      <p>
        <Link to="/">← Namespaces</Link>
      </p>
      <h1>Create a Namespace</h1>
      <form onSubmit={submit} aria-label="Create a Namespace">
        <Field
          id="ns-name"
          label="Name"
          value={name}
          onValue={setName}
          maxLength={200}
          describedBy="ns-name-help"
        />
        <p id="ns-name-help" class="muted">
          Unique in the Installation for ever: a deleted Namespace's name is not given again.
        </p>
        <fieldset>
          <legend>Placement</legend>
          <label class="choice">
            <input
              type="radio"
              name="mode"
              value="managed"
              checked={mode === "managed"}
              onChange={() => {
                setMode("managed");
              }}
            />
            Managed: OCC creates a Kubernetes namespace and deletes it with the tenant
          </label>
          <label class="choice">
            <input
              type="radio"
              name="mode"
              value="external"
              checked={mode === "external"}
              onChange={() => {
                setMode("external");
              }}
            />
            Existing namespace: select an operator-owned Kubernetes namespace
          </label>
        </fieldset>
        {mode === "external" ? (
          <>
            <Field
              id="ns-existing"
              label="Kubernetes namespace"
              value={existing}
              onValue={setExisting}
              maxLength={63}
              pattern={DNS_LABEL}
              describedBy="ns-existing-help"
              list={administrator ? "ns-selectable" : undefined}
            />
            {administrator ? <SelectableNamespaces listId="ns-selectable" /> : null}
            <div id="ns-existing-help" class="muted">
              <p>
                A DNS label the operator created, not default, kube-*, openshift-*, oce-* or the
                controller's own namespace. The worker verifies it before binding the tenant — among
                others, all three <code>pod-security.kubernetes.io</code> labels set to{" "}
                <code>restricted</code>, no other tenant's markers, and the RoleBindings it needs.
                Every failing requirement is shown below with its fix before you create it, and on
                the Namespace's page as the worker finds it; fix it and choose Retry.
              </p>
              {administrator ? null : (
                <p>
                  Selecting an existing namespace is for administrators: the API will refuse it.
                </p>
              )}
            </div>
          </>
        ) : null}
        {mode === "external" && administrator ? <Preflight name={existing} /> : null}
        <button type="submit" class="primary" disabled={busy}>
          Create
        </button>
      </form>
      <Refusal error={error} label="Create refused" />
    </main>
  );
}
