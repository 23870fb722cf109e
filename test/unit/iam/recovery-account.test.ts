/**
 * The API's startup check of `auth.recoveryUserId`: a warning (never a refusal) when it names no
 * live user, since the break-glass sign-in would then be impossible.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { createPrincipal, deletePrincipal } from "../../../src/iam/principals.js";
import { checkRecoveryAccount } from "../../../src/main/auth-runtime.js";
import type { Db } from "../../../src/store/db.js";
import { principal } from "./db.js";
import { openMigratedPglite } from "../../harness/pglite.js";

function configNaming(id: string) {
  return validateInstallationConfig({ auth: { recoveryUserId: id } }, "test.yaml");
}

async function warningsFor(db: Db, id: string): Promise<string[]> {
  const warnings: string[] = [];
  await checkRecoveryAccount(db, configNaming(id), (m) => warnings.push(m));
  return warnings;
}

describe("the recovery account check", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openMigratedPglite();
  });
  afterAll(async () => {
    await db.close();
  });

  it("is silent for a live user", async () => {
    expect(await warningsFor(db, await principal(db, "recovery-admin"))).toEqual([]);
  });

  it("warns for an unknown ID, a service principal and a deleted user", async () => {
    const unknown = await warningsFor(db, "prn_nobody");
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toContain("prn_nobody names no live principal");
    const service = await createPrincipal(db, { kind: "service", name: "recovery-ci" });
    if (service.outcome !== "created") throw new Error(service.outcome);
    expect((await warningsFor(db, service.principal.id))[0]).toContain("is not a user");
    const gone = await principal(db, "recovery-gone");
    await deletePrincipal(db, gone);
    expect((await warningsFor(db, gone))[0]).toContain("names no live principal");
  });
});
