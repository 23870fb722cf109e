/** Path routing under /console/ with the History API: no reload between pages. */
import { useEffect, useState } from "preact/hooks";

export const BASE = "/console";

/** The path below /console (`/`, `/namespaces/ns_…`). */
function current(): string {
  const path = window.location.pathname;
  const below = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  return below === "" ? "/" : below;
}

const listeners = new Set<() => void>();

/** Goes to `path` (below /console) without a reload. */
export function navigate(path: string): void {
  window.history.pushState(null, "", `${BASE}${path}`);
  for (const listener of listeners) listener();
}

/** The current path below /console, re-rendering on every navigation. */
export function usePath(): string {
  const [path, setPath] = useState(current);
  useEffect(() => {
    const update = () => {
      setPath(current());
    };
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

/** A click on an in-console link: navigates without a reload (modified clicks open normally). */
export function onLink(path: string): (event: MouseEvent) => void {
  return (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(path);
  };
}
