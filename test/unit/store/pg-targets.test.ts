import { describe, expect, it } from "vitest";
import { isTransientDatabaseFailure } from "../../../src/store/guarded-db.js";
import { parsePgTargets, sessionMatches, sessionUnusable } from "../../../src/store/pg-targets.js";

describe("parsePgTargets", () => {
  it("splits a multi-host URL into single-host URLs, keeping credentials, database and parameters", () => {
    const parsed = parsePgTargets(
      "postgres://occ:s%40cret@db-a:5433,db-b,[::1]:6000/occ?sslmode=require&target_session_attrs=read-write&application_name=occ",
    );
    expect(parsed.sessionAttrs).toBe("read-write");
    expect(parsed.targets).toEqual([
      {
        label: "db-a:5433",
        connectionString:
          "postgres://occ:s%40cret@db-a:5433/occ?sslmode=require&application_name=occ",
      },
      {
        label: "db-b:5432",
        connectionString:
          "postgres://occ:s%40cret@db-b:5432/occ?sslmode=require&application_name=occ",
      },
      {
        label: "[::1]:6000",
        connectionString:
          "postgres://occ:s%40cret@[::1]:6000/occ?sslmode=require&application_name=occ",
      },
    ]);
  });

  it("keeps a single-host URL as it is (only target_session_attrs removed), default any", () => {
    const url = "postgresql://occ@db:5432/occ?sslmode=disable";
    expect(parsePgTargets(url)).toEqual({
      targets: [{ label: "db:5432", connectionString: url }],
      sessionAttrs: "any",
    });
    expect(parsePgTargets("postgres://db/occ?target_session_attrs=primary")).toEqual({
      targets: [{ label: "db", connectionString: "postgres://db/occ" }],
      sessionAttrs: "primary",
    });
    expect(parsePgTargets("host=/run/postgresql dbname=occ").targets).toHaveLength(1);
  });

  it("refuses a standby target and an empty host without echoing the password", () => {
    const standby = () =>
      parsePgTargets("postgres://occ:hunter2@a,b/occ?target_session_attrs=standby");
    expect(standby).toThrow(/target_session_attrs=standby is not supported.*read-write/);
    expect(standby).not.toThrow(/hunter2/);
    expect(() => parsePgTargets("postgres://occ:hunter2@a,,b/occ")).toThrow(/empty host/);
    expect(() => parsePgTargets("postgres://occ:hunter2@a,,b/occ")).not.toThrow(/hunter2/);
  });
});

describe("sessionMatches", () => {
  it("read-write needs a server out of recovery with transaction_read_only off; primary only the first", () => {
    const primary = { recovery: false, read_only: "off" };
    const readOnlyPrimary = { recovery: false, read_only: "on" };
    const standby = { recovery: true, read_only: "on" };
    expect(sessionMatches("read-write", primary)).toBe(true);
    expect(sessionMatches("read-write", readOnlyPrimary)).toBe(false);
    expect(sessionMatches("read-write", standby)).toBe(false);
    expect(sessionMatches("read-write", undefined)).toBe(false);
    expect(sessionMatches("primary", readOnlyPrimary)).toBe(true);
    expect(sessionMatches("primary", standby)).toBe(false);
    expect(sessionMatches("any", standby)).toBe(true);
  });
});

describe("errors of a failover", () => {
  it("a write refused by a demoted server is transient and ends the session; an integrity error neither", () => {
    const readOnly = { code: "25006" };
    expect(isTransientDatabaseFailure(readOnly)).toBe(true);
    expect(sessionUnusable(readOnly)).toBe(true);
    expect(sessionUnusable({ code: "57P01" })).toBe(true);
    // Thrown inside a guarded transaction: the guard's wrapper names the server's error as its cause.
    expect(sessionUnusable(new Error("database unavailable", { cause: readOnly }))).toBe(true);
    expect(isTransientDatabaseFailure({ code: "23505" })).toBe(false);
    expect(sessionUnusable({ code: "23505" })).toBe(false);
    expect(isTransientDatabaseFailure({ code: "25P02" })).toBe(false);
  });
});
