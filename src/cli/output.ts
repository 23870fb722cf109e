/**
 * kubectl-like output for the client commands: `-o table` (the default, aligned columns with
 * upper-case headers), `-o json` and `-o yaml` (the API's objects unchanged).
 */
import { Option } from "commander";
import { stringify } from "yaml";
import { INVISIBLE_CHARACTER } from "../domain/input/display-names.js";

export const OUTPUT_FORMATS = ["table", "json", "yaml"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `-o, --output <format>` restricted to {@link OUTPUT_FORMATS}. */
export function outputOption(): Option {
  return new Option("-o, --output <format>", "output format")
    .choices(OUTPUT_FORMATS)
    .default("table");
}

/** One table column: its header and how to read the cell from a row. */
export interface Column<T> {
  readonly header: string;
  readonly cell: (row: T) => string;
}

/** Renders rows as aligned columns; the last column is not padded. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = [
    columns.map((c) => c.header.toUpperCase()),
    ...rows.map((r) => columns.map((c) => oneLine(c.cell(r)))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? "").length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("   ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * What cannot be shown as itself in a terminal cell: control characters (C0, DEL, C1),
 * format characters (Unicode Cf: bidirectional controls, zero-width characters, the BOM),
 * line and paragraph separators, whitespace other than a plain space, unpaired surrogates,
 * the other invisible or blank characters the name policy refuses (Hangul fillers, variation
 * selectors, U+2800: a name stored before the policy shows them) — and the backslash itself,
 * so an escape in a cell is always one this function wrote.
 */
const NON_PRINTABLE = new RegExp(
  `[\\\\\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]|(?! )\\s|\\p{Cs}|${INVISIBLE_CHARACTER.source}`,
  "gu",
);

/**
 * `text` with every non-printable character written as a visible escape (`\u{202E}`, `\n`),
 * so a name with a right-to-left override or a zero-width space cannot pass for another on
 * screen, and a cell stays on one line.
 */
export function printable(text: string): string {
  return text.replace(NON_PRINTABLE, (c) => {
    if (c === "\\") return "\\\\";
    if (c === "\n") return "\\n";
    if (c === "\t") return "\\t";
    if (c === "\r") return "\\r";
    return `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}}`;
  });
}

function oneLine(text: string): string {
  return printable(text);
}

/**
 * Formats a single object or a list. A list in JSON/YAML is `{items: [...]}` like kubectl's,
 * so scripts see one shape whether there is one item or many.
 */
export function render<T>(
  format: OutputFormat,
  value: T | readonly T[],
  columns: readonly Column<T>[],
): string {
  const list = Array.isArray(value);
  const doc = list ? { items: value } : value;
  switch (format) {
    case "json":
      return JSON.stringify(doc, null, 2);
    case "yaml":
      return stringify(doc).trimEnd();
    case "table":
      return table(isList(value) ? value : [value], columns);
  }
}

/** `value` is a list of rows (not one row). */
function isList<T>(value: T | readonly T[]): value is readonly T[] {
  return Array.isArray(value);
}

/** A result line on stdout (what scripts capture). */
export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** A progress or status line on stderr (never mixed into the result). */
export function say(line: string): void {
  process.stderr.write(`${line}\n`);
}
