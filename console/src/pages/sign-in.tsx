/** Sign in: a password form when passwords are enabled, and each enabled external provider. */
import { useEffect, useState } from "preact/hooks";
import { api, type ProvidersView } from "../api.js";
import { BASE } from "../router.js";
import { Field, Refusal } from "../ui.js";

export function SignIn(props: { onSignedIn: () => void }) {
  const [providers, setProviders] = useState<ProvidersView | null>(null);
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.providers().then(setProviders, setError);
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    api.signIn(user, password).then(
      () => {
        setPassword("");
        props.onSignedIn();
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const back = encodeURIComponent(
    window.location.pathname.startsWith(BASE) ? window.location.pathname : `${BASE}/`,
  );
  const external = (provider: string) => `/auth/oidc/start?provider=${provider}&redirect=${back}`;

  return (
    <main id="main" class="signin" tabIndex={-1}>
      <h1>Sign in to OCC</h1>
      <form onSubmit={submit} aria-label="Sign in with a password">
        <Field id="user" label="User" value={user} onValue={setUser} autocomplete="username" />
        <Field
          id="password"
          label="Password"
          type="password"
          value={password}
          onValue={setPassword}
          autocomplete="current-password"
        />
        {providers?.password === "recovery-only" ? (
          <p class="muted">Passwords are accepted for the recovery account only.</p>
        ) : null}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <Refusal error={error} label="Sign-in refused" />
      {providers !== null && (providers.oidc !== null || providers.google) ? (
        <section aria-labelledby="sso">
          <h2 id="sso">Single sign-on</h2>
          <ul class="providers">
            {providers.oidc !== null ? (
              <li>
                <a class="button" href={external("oidc")}>
                  Sign in with {providers.oidc.displayName}
                </a>
              </li>
            ) : null}
            {providers.google ? (
              <li>
                <a class="button" href={external("google")}>
                  Sign in with Google
                </a>
              </li>
            ) : null}
          </ul>
        </section>
      ) : null}
    </main>
  );
}
