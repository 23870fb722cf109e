/**
 * Sanitizing of human-readable reasons (placement.md §4: "a short, sanitized reason").
 *
 * A reason is shown to whoever can read the platform Namespace, so it must be short, printable
 * and must never leak another tenant: no foreign ID and no name of an object that may belong
 * to another tenant. Callers pass those strings as `forbidden`; this module guarantees none of
 * them survives, whatever the surrounding text.
 */

/** Maximum length of a reason, in UTF-16 code units (the API's `message` limit). */
export const MAX_REASON_LENGTH = 256;

/** What replaces a forbidden string. */
export const REDACTION_MARKER = "[redacted]";

const ELLIPSIS = "…";

/** Line breaks and tabs: they separate words, so they become one space. */
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;

/** Other C0/C1 controls, DEL and bidirectional overrides/isolates: removed outright. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes `text` a safe reason: line breaks and tabs become single spaces, other control and
 * bidi-override characters are removed, the result is trimmed, every occurrence of a
 * `forbidden` string is redacted, and the whole is cut to {@link MAX_REASON_LENGTH} (with an
 * ellipsis when it was cut).
 *
 * Order matters: control characters are removed before redaction, so `ns_a\u0000bc` becomes
 * `ns_abc` and is then redacted rather than slipping through (a forbidden string is matched
 * both as given and in its cleaned form); the ellipsis is dropped again
 * if it would complete a forbidden string. Cutting only keeps a prefix, which cannot create
 * an occurrence.
 */
export function sanitizeReason(text: string, forbidden: readonly string[] = []): string {
  const printable = printableForm(text).trim();
  // A forbidden string that itself holds control characters appears in the cleaned text in
  // its cleaned form, so that form is forbidden too.
  const needles = [...forbidden, ...forbidden.map(printableForm)].filter((needle) => needle !== "");
  const redacted = redact(printable, needles);
  if (redacted.length <= MAX_REASON_LENGTH) return redacted;
  const cut = truncate(redacted, MAX_REASON_LENGTH - ELLIPSIS.length);
  const withEllipsis = cut + ELLIPSIS;
  return containsAny(withEllipsis, needles) ? truncate(redacted, MAX_REASON_LENGTH) : withEllipsis;
}

/**
 * Replaces every occurrence of each `forbidden` string with {@link REDACTION_MARKER} until
 * none remains. Matching is exact (IDs and names are case-sensitive). Replacing can create a
 * new occurrence across the marker's edge; after a few rounds the remaining occurrences are
 * deleted outright, which strictly shortens the text and therefore terminates.
 */
export function redact(text: string, forbidden: readonly string[]): string {
  const needles = forbidden.filter((needle) => needle !== "");
  const marker = needles.some((needle) => REDACTION_MARKER.includes(needle))
    ? ""
    : REDACTION_MARKER;
  let current = text;
  for (let round = 0; containsAny(current, needles); round += 1) {
    const replacement = round < 4 ? marker : "";
    for (const needle of needles) current = current.split(needle).join(replacement);
  }
  return current;
}

function printableForm(text: string): string {
  return text.replace(BREAKS, " ").replace(CONTROL, "");
}

function containsAny(text: string, needles: readonly string[]): boolean {
  return needles.some((needle) => text.includes(needle));
}

/** Cuts to at most `max` code units without splitting a surrogate pair. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return text.slice(0, end);
}
