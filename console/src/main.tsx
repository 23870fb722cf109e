/**
 * The administrator console (issue 37): a client of the OCC JSON API, signed in with the
 * API's session cookie. Who the reader is decides what is offered (whoami's permissions); the
 * API decides what is allowed.
 */
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, ApiError, type WhoAmIView } from "./api.js";
import { navigate, usePath } from "./router.js";
import { Link, Refusal } from "./ui.js";
import { SignIn } from "./pages/sign-in.js";
import { NamespaceList } from "./pages/namespaces.js";
import { CreateNamespace } from "./pages/create-namespace.js";
import { NamespacePage } from "./pages/namespace.js";
import { Installation } from "./pages/installation.js";

type Session = { state: "loading" } | { state: "out" } | { state: "in"; who: WhoAmIView };

function Page(props: { who: WhoAmIView; path: string }) {
  const { path, who } = props;
  if (path === "/namespaces/new") return <CreateNamespace who={who} />;
  const one = /^\/namespaces\/([^/]+)$/.exec(path);
  if (one?.[1] !== undefined) return <NamespacePage id={decodeURIComponent(one[1])} who={who} />;
  if (path === "/installation") return <Installation who={who} />;
  if (path === "/" || path === "/namespaces") return <NamespaceList who={who} />;
  return (
    <main id="main" tabIndex={-1}>
      <h1>Not found</h1>
      <p>
        No console page at {path}. <Link to="/">Namespaces</Link>
      </p>
    </main>
  );
}

function App() {
  const path = usePath();
  const [session, setSession] = useState<Session>({ state: "loading" });
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(() => {
    api.whoami().then(
      (who) => {
        setSession({ state: "in", who });
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 401) setSession({ state: "out" });
        else setError(err);
      },
    );
  }, []);
  useEffect(load, [load]);
  useEffect(() => {
    document.getElementById("main")?.focus();
  }, [path]);

  const signOut = () => {
    api.signOut().then(
      () => {
        setSession({ state: "out" });
        navigate("/");
      },
      (err: unknown) => {
        setError(err);
      },
    );
  };

  if (session.state === "loading") {
    return (
      <main id="main" aria-busy="true">
        <p>Loading…</p>
        <Refusal error={error} />
      </main>
    );
  }
  if (session.state === "out") return <SignIn onSignedIn={load} />;
  const { who } = session;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">OCC</span>
        <nav aria-label="Console">
          <Link to="/">Namespaces</Link>
          <Link to="/installation">Installation</Link>
        </nav>
        <div class="who" aria-label="Signed in">
          <span>
            Signed in as <strong>{who.principal.name}</strong> ({who.principal.kind}
            {who.credential.kind === "session" ? `, ${who.credential.method}` : ""})
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <Refusal error={error} />
      <Page who={who} path={path} />
    </>
  );
}

const root = document.getElementById("app");
if (root !== null) render(<App />, root);
