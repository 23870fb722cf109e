/** Small shared pieces: links, the refusal box, times, status badges, polling. */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { ApiError } from "./api.js";
import { BASE, onLink } from "./router.js";

export function Link(props: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a href={`${BASE}${props.to}`} onClick={onLink(props.to)} class={props.class}>
      {props.children}
    </a>
  );
}

/** The API's refusal as it said it: code and message, announced to screen readers. */
export function Refusal(props: { error: unknown; label?: string }) {
  const { error } = props;
  if (error === null || error === undefined) return null;
  const code = error instanceof ApiError ? error.code : "ERROR";
  const message = error instanceof Error ? error.message : "Something went wrong.";
  return (
    <div role="alert" class="refusal" aria-label={props.label ?? "Refused"}>
      <strong>{code}</strong> {message}
    </div>
  );
}

/** A time as the reader's locale shows it, with the exact instant in `datetime`. */
export function Time(props: { at: string | null | undefined }) {
  if (props.at === null || props.at === undefined) return <span class="muted">never</span>;
  const when = new Date(props.at);
  return (
    <time dateTime={props.at} title={props.at}>
      {when.toLocaleString()}
    </time>
  );
}

export function Status(props: { status: string }) {
  return <span class={`status status-${props.status}`}>{props.status}</span>;
}

/** States the worker is still working on: the console polls while one is shown. */
export const IN_PROGRESS = new Set(["provisioning", "deleting", "pending", "deploying"]);

/** Calls `tick` every `ms` while `active`, and once at once when it becomes active. */
export function usePolling(active: boolean, ms: number, tick: () => void): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return undefined;
    const timer = window.setInterval(() => {
      latest.current();
    }, ms);
    return () => {
      window.clearInterval(timer);
    };
  }, [active, ms]);
}

/** A block of text with a button that copies it. */
export function Copyable(props: { label: string; text: string }) {
  const copy = () => {
    void navigator.clipboard.writeText(props.text).catch(() => undefined);
  };
  return (
    <figure class="copyable">
      <figcaption>{props.label}</figcaption>
      <pre tabIndex={0} aria-label={props.label}>
        {props.text}
      </pre>
      <button type="button" onClick={copy}>
        Copy {props.label}
      </button>
    </figure>
  );
}

/** A labelled text input bound to a string state. */
export function Field(props: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  type?: "text" | "password";
  autocomplete?: string;
  maxLength?: number;
  pattern?: string;
  describedBy?: string;
  /** The id of a `<datalist>` of suggestions. */
  list?: string | undefined;
}) {
  const common = {
    id: props.id,
    name: props.id,
    required: true,
    value: props.value,
    ...(props.autocomplete === undefined ? {} : { autocomplete: props.autocomplete }),
    ...(props.maxLength === undefined ? {} : { maxLength: props.maxLength }),
    ...(props.pattern === undefined ? {} : { pattern: props.pattern }),
    ...(props.describedBy === undefined ? {} : { "aria-describedby": props.describedBy }),
    onInput: (e: Event) => {
      if (e.currentTarget instanceof HTMLInputElement) props.onValue(e.currentTarget.value);
    },
  };
  return (
    <>
      <label for={props.id}>{props.label}</label>
      {props.type === "password" ? (
        <input type="password" {...common} />
      ) : (
        <input
          type="text"
          {...common}
          {...(props.list === undefined ? {} : { list: props.list })}
        />
      )}
    </>
  );
}
