/**
 * The preflight of an existing namespace, shown while an administrator selects one and before
 * the form is submitted (`GET /namespaces/preflight`): every failing requirement with its fix,
 * exactly the worker's adoption checks, read by the API with its own read-only identity. The
 * namespaces that may be selected (`GET /namespaces/selectable`) are offered as suggestions.
 * A check that could not run is shown as the API's refusal, never as a pass.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, type PreflightResultView, type SelectableView } from "../api.js";
import { Refusal } from "../ui.js";

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The selectable namespaces, as a `<datalist>` with id `listId`. */
export function SelectableNamespaces(props: { listId: string }) {
  const [items, setItems] = useState<SelectableView>([]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.selectable().then(setItems, setError);
  }, []);
  return (
    <>
      <datalist id={props.listId}>
        {items.map((n) => (
          <option key={n.name} value={n.name} />
        ))}
      </datalist>
      <p class="muted">
        {error === null
          ? `${String(items.length)} namespace(s) without tenant markers can be selected; type to choose one.`
          : null}
      </p>
      <Refusal error={error} label="Selectable namespaces not read" />
    </>
  );
}

/** Runs the preflight of `name` (debounced while typing) and shows its result. */
export function Preflight(props: { name: string }) {
  const [result, setResult] = useState<PreflightResultView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const valid = DNS_LABEL.test(props.name) && props.name.length <= 63;
  const run = useCallback(() => {
    if (!valid) return;
    setBusy(true);
    api.preflight(props.name).then(
      (r) => {
        setBusy(false);
        setResult(r);
        setError(null);
      },
      (err: unknown) => {
        setBusy(false);
        setResult(null);
        setError(err);
      },
    );
  }, [props.name, valid]);
  useEffect(() => {
    setResult(null);
    setError(null);
    const timer = window.setTimeout(run, 400);
    return () => {
      window.clearTimeout(timer);
    };
  }, [run]);
  if (!valid) return null;
  const shown = result !== null && result.existingNamespace === props.name ? result : null;
  return (
    <section class="preflight" aria-labelledby="preflight-heading" aria-busy={busy}>
      <h2 id="preflight-heading">Preflight of {props.name}</h2>
      <div role="status" aria-live="polite">
        {busy ? <p>Checking {props.name}…</p> : null}
        {shown === null ? null : shown.ok ? (
          <p class="ok">{props.name} meets every requirement: it can be selected.</p>
        ) : (
          <p>
            {props.name} fails {shown.failures.length} requirement(s). Creating it now, the worker
            refuses it with these reasons until they are fixed (then choose Retry on its page).
          </p>
        )}
      </div>
      {shown === null || shown.ok ? null : (
        <ul aria-label="Failing requirements" class="failures">
          {shown.failures.map((f, i) => (
            <li key={`${f.check}-${String(i)}`}>
              <strong class="mono">
                {f.check}
                {f.key === null ? "" : ` ${f.key}`}
              </strong>{" "}
              {f.message}
            </li>
          ))}
        </ul>
      )}
      <Refusal error={error} label="Preflight refused" />
      <button type="button" onClick={run} disabled={busy}>
        Check again
      </button>
    </section>
  );
}
