/**
 * The string formats of the API's schemas, registered with TypeBox so that both the server's
 * validator and the CLI's response parser check them the same way.
 *
 * "Plain text", the format of descriptions, is well-formed Unicode (no lone surrogates, which
 * PostgreSQL cannot store) without control characters (C0, DEL, C1, and the line/paragraph
 * separators some locales class as control) — a value accepted here is one the database's
 * `!~ '[[:cntrl:]]'` CHECKs accept too, and it prints on one line — and without bidirectional
 * controls, format characters or other invisible characters (`checkDescription` in
 * `domain/input/display-names.ts`). Display names follow the stricter name policy there.
 */
import { FormatRegistry } from "@sinclair/typebox";
import { checkDescription, checkDisplayName } from "../domain/input/display-names.js";

/** The TypeBox/OpenAPI `format` name for plain text (descriptions). */
export const PLAIN_TEXT_FORMAT = "plain-text";

/**
 * The format of display names (the `name` of Namespaces, principals, roles, Secrets,
 * ServiceAccounts and Agents): plain text under the policy of `domain/input/display-names.ts`.
 */
export const DISPLAY_NAME_FORMAT = "display-name";

/** True when `value` is a display name under the policy. */
export function isDisplayName(value: string): boolean {
  return checkDisplayName(value).ok;
}

/** True when `value` is plain text (see the module comment). */
export function isPlainText(value: string): boolean {
  return checkDescription(value).ok;
}

/** Length in code points, as PostgreSQL's `char_length` counts. */
export function codePointLength(value: string): number {
  return Array.from(value).length;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Registers the string formats the API's schemas use with TypeBox (a process-wide registry;
 * registering twice is harmless): `plain-text` and `date-time` (RFC 3339, a real instant).
 */
export function registerFormats(): void {
  FormatRegistry.Set(PLAIN_TEXT_FORMAT, isPlainText);
  FormatRegistry.Set(DISPLAY_NAME_FORMAT, isDisplayName);
  FormatRegistry.Set(
    "date-time",
    (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
  );
}
