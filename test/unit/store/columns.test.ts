import { describe, expect, it } from "vitest";
import {
  bool,
  branded,
  columnName,
  defineRow,
  defineTable,
  integer,
  jsonObject,
  nullable,
  numeric,
  oneOf,
  RowDecodeError,
  rowObject,
  text,
  timestamp,
} from "../../../src/store/columns.js";

const isTag = (v: unknown): v is `t_${string}` => typeof v === "string" && v.startsWith("t_");

const things = defineTable("things", {
  id: branded(isTag, "a tag"),
  displayName: text,
  count: integer,
  state: oneOf(["on", "off"] as const),
  seenAt: nullable(timestamp),
  details: jsonObject,
});

const good = {
  id: "t_1",
  display_name: "one",
  count: 3,
  state: "on",
  seen_at: null,
  details: { a: [1, "x"] },
};

describe("defineTable", () => {
  it("derives the select list in snake_case, optionally qualified", () => {
    expect(things.select()).toBe("id, display_name, count, state, seen_at, details");
    expect(things.select("t")).toBe("t.id, t.display_name, t.count, t.state, t.seen_at, t.details");
  });

  it("renames every column with a prefix, and decodes the renamed row back", () => {
    expect(things.select("t", "x_")).toBe(
      "t.id AS x_id, t.display_name AS x_display_name, t.count AS x_count, t.state AS x_state, t.seen_at AS x_seen_at, t.details AS x_details",
    );
    const renamed = Object.fromEntries(Object.entries(good).map(([k, v]) => [`x_${k}`, v]));
    expect(things.decode({ ...renamed, id: "t_other" }, "x_")).toEqual(things.decode(good));
    expect(() => things.decode(good, "x_")).toThrow("things.id: missing from the result");
  });

  it("decodes a row into camelCase properties", () => {
    expect(things.decode(good)).toEqual({
      id: "t_1",
      displayName: "one",
      count: 3,
      state: "on",
      seenAt: null,
      details: { a: [1, "x"] },
    });
  });

  it.each([
    [{ ...good, id: "x_1" }, "things.id: expected a tag"],
    [{ ...good, count: 1.5 }, "things.count: expected an integer"],
    [{ ...good, count: "3" }, "things.count: expected an integer"],
    [{ ...good, state: "maybe" }, "things.state: expected one of on, off"],
    [{ ...good, seen_at: "2030-01-01" }, "things.seen_at: expected a timestamp"],
    [{ ...good, details: [1] }, "things.details: expected a JSON object"],
    [{ ...good, display_name: null }, "things.display_name: expected text, got object"],
    [
      Object.fromEntries(Object.entries(good).filter(([k]) => k !== "count")),
      "things.count: missing from the result",
    ],
    [null, "things: expected a row object"],
  ])("refuses %j naming the column", (raw, message) => {
    expect(() => things.decode(raw)).toThrow(RowDecodeError);
    expect(() => things.decode(raw)).toThrow(message);
  });

  it.each([
    ["id", "id"],
    ["existingNamespace", "existing_namespace"],
    ["kubernetesUid", "kubernetes_uid"],
  ])("names property %s column %s", (property, column) => {
    expect(columnName(property)).toBe(column);
  });
});

describe("defineRow, for projections and aggregates", () => {
  const counts = defineRow("namespaces (counts)", { status: text, n: numeric, live: bool });

  it("decodes count(*) and numeric as pg (text) and PGlite (number) send them", () => {
    expect(counts.decodeAll([{ status: "ready", n: "12", live: true }])).toEqual([
      { status: "ready", n: 12, live: true },
    ]);
    expect(counts.decodeFirst([{ status: "ready", n: 0.5, live: false }])?.n).toBe(0.5);
  });

  it("refuses what is not a number or a boolean, naming the row and the column", () => {
    expect(() => counts.decode({ status: "ready", n: "", live: true })).toThrow(
      "namespaces (counts).n: expected a number, got string",
    );
    expect(() => counts.decode({ status: "ready", n: 1, live: "t" })).toThrow(
      "namespaces (counts).live: expected a boolean, got string",
    );
  });

  it("rowObject keeps a composed row's columns and refuses anything but a row", () => {
    expect(rowObject({ id: null, occ_had_candidate: true }, "claim")).toEqual({
      id: null,
      occ_had_candidate: true,
    });
    expect(() => rowObject([1], "claim")).toThrow(RowDecodeError);
    expect(() => rowObject(null, "claim")).toThrow("claim: expected a row object");
  });
});
