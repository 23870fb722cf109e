/**
 * The Installation: its profile and the admission policies present, the workers' heartbeats
 * and startup refusals, and the caller's rights.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import {
  api,
  ApiError,
  type InstallationView,
  type WhoAmIView,
  type WorkerReportView,
} from "../api.js";
import { Refusal, Status, Time, usePolling } from "../ui.js";

export function Installation(props: { who: WhoAmIView }) {
  const [workers, setWorkers] = useState<WorkerReportView[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [installation, setInstallation] = useState<InstallationView | null>(null);
  const [installationError, setInstallationError] = useState<unknown>(null);
  const load = useCallback(() => {
    api.workers().then((w) => {
      setWorkers(w);
      setError(null);
    }, setError);
    api.installation().then((i) => {
      setInstallation(i);
      setInstallationError(null);
    }, setInstallationError);
  }, []);
  useEffect(load, [load]);
  usePolling(true, 10_000, load);
  const perms = props.who.installationPermissions;
  return (
    <main id="main" tabIndex={-1}>
      <h1>Installation</h1>
      <section aria-labelledby="you-heading">
        <h2 id="you-heading">You</h2>
        <dl class="facts">
          <dt>Principal</dt>
          <dd>
            {props.who.principal.name} <span class="mono muted">{props.who.principal.id}</span>
          </dd>
          <dt>Signed in with</dt>
          <dd>
            {props.who.credential.kind === "session" ? (
              <>
                a {props.who.credential.method} session until{" "}
                <Time at={props.who.credential.expiresAt} />
              </>
            ) : (
              "an API key"
            )}
          </dd>
          <dt>Installation-wide permissions</dt>
          <dd>{perms.length === 0 ? "none" : perms.join(", ")}</dd>
        </dl>
      </section>
      <Profile installation={installation} error={installationError} />
      <section aria-labelledby="workers-heading">
        <h2 id="workers-heading">Workers</h2>
        {error instanceof ApiError && error.status === 403 ? (
          <p class="muted">Workers are shown to administrators.</p>
        ) : (
          <Refusal error={error} />
        )}
        {workers === null ? null : workers.length === 0 ? (
          <p role="alert">No worker has reported: no work moves until one runs.</p>
        ) : (
          <div class="table-wrap">
            <table class="cards">
              <caption class="visually-hidden">Workers</caption>
              <thead>
                <tr>
                  <th scope="col">Worker</th>
                  <th scope="col">State</th>
                  <th scope="col">Started</th>
                  <th scope="col">Last heartbeat</th>
                  <th scope="col">Startup refusal</th>
                </tr>
              </thead>
              <tbody>
                {workers.map((w) => (
                  <tr key={w.workerId}>
                    <th scope="row" class="mono">
                      {w.workerId}
                    </th>
                    <td data-label="State">
                      <Status status={w.state} />
                    </td>
                    <td data-label="Started">
                      <Time at={w.startedAt} />
                    </td>
                    <td data-label="Last heartbeat">
                      <Time at={w.lastHeartbeatAt} />
                    </td>
                    <td data-label="Startup refusal">
                      {w.refusal === null
                        ? "—"
                        : `${w.refusal.check}: ${w.refusal.code} — ${w.refusal.message}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </main>
  );
}

function Profile(props: { installation: InstallationView | null; error: unknown }) {
  const i = props.installation;
  return (
    <section aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      {props.error instanceof ApiError && props.error.status === 403 ? (
        <p class="muted">The profile and admission policies are shown to administrators.</p>
      ) : (
        <Refusal error={props.error} />
      )}
      {i === null ? null : (
        <dl class="facts">
          <dt>Profile</dt>
          <dd>
            {i.profile === "normal"
              ? "normal: managed and existing namespaces"
              : "preprovisioned: one Namespace in the namespace the operator prepared"}
          </dd>
          {i.boundNamespace === null ? null : (
            <>
              <dt>Bound namespace</dt>
              <dd class="mono">{i.boundNamespace}</dd>
            </>
          )}
          <dt>Admission policies</dt>
          <dd>
            {i.admissionPoliciesRefusal !== null ? (
              <span>
                not read: <strong>{i.admissionPoliciesRefusal.code}</strong>{" "}
                {i.admissionPoliciesRefusal.message}
              </span>
            ) : i.profile === "preprovisioned" ? (
              "none: the preprovisioned profile renders none"
            ) : (
              <ul aria-label="Admission policies">
                {i.admissionPolicies.map((p) => (
                  <li key={p.name}>
                    <span class="mono">{p.name}</span>:{" "}
                    {p.policy && p.binding
                      ? "present"
                      : p.policy
                        ? "policy present, binding missing: it enforces nothing"
                        : "absent: helm upgrade with admissionPolicies.enabled=true"}
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}
