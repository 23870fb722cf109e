import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CI_VALUES, KUBE_VERSION, REPO_ROOT, helmTemplate } from "../../harness/helm.js";

/**
 * kube-score (v1.20.0, built from tools/kube-score by tools/build-cluster-tools.sh), a widely
 * used manifest checker, scores both of the chart's renderings with no critical finding: every
 * container runs as user and group 10001, requests and limits ephemeral-storage, and the
 * pull-policy check is ignored, with its reason, because the image is pinned by digest.
 */
const KUBE_SCORE = join(REPO_ROOT, ".tools", "bin", "kube-score");
const GRADE_CRITICAL = 1;
const GRADE_ALL_OK = 10;

interface ScoredObject {
  readonly object_name: string;
  readonly type_meta: { readonly kind: string };
  readonly checks: readonly {
    readonly check: { readonly id: string };
    readonly grade: number;
    readonly skipped: boolean;
    readonly comments: readonly { readonly path: string; readonly summary: string }[] | null;
  }[];
}

interface Scored {
  readonly code: number;
  readonly objects: readonly ScoredObject[];
  readonly stderr: string;
}

function kubeScore(manifests: string): Promise<Scored> {
  const minor = KUBE_VERSION.split(".").slice(0, 2).join(".");
  return new Promise((resolve, reject) => {
    const child = execFile(
      KUBE_SCORE,
      ["score", "--kubernetes-version", `v${minor}`, "--output-format", "json", "-"],
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== "number") {
          reject(new Error(`cannot run ${KUBE_SCORE}: ${err.message} (run bash tools/prereqs.sh)`));
          return;
        }
        try {
          const objects = JSON.parse(stdout) as ScoredObject[];
          resolve({ code: err === null ? 0 : Number(err.code), objects, stderr });
        } catch {
          reject(new Error(`kube-score printed no JSON (exit ${String(err?.code)}): ${stderr}`));
        }
      },
    );
    child.stdin?.end(manifests);
  });
}

/** Each critical finding as one readable line: object, check, container path and summary. */
function criticalFindings(objects: readonly ScoredObject[]): string[] {
  return objects.flatMap((o) =>
    o.checks
      .filter((c) => !c.skipped && c.grade <= GRADE_CRITICAL)
      .flatMap((c) =>
        (c.comments ?? [{ path: "", summary: "" }]).map(
          (m) => `${o.object_name} ${c.check.id} ${m.path}: ${m.summary}`,
        ),
      ),
  );
}

function grade(objects: readonly ScoredObject[], kind: string, check: string) {
  return objects
    .filter((o) => o.type_meta.kind === kind)
    .map((o) => {
      const c = o.checks.find((s) => s.check.id === check);
      return { object: o.object_name, grade: c?.grade, skipped: c?.skipped };
    });
}

describe("kube-score finds nothing critical in the chart", () => {
  for (const [profile, workloads] of [
    ["default", { Deployment: 2, Job: 1 }],
    ["preprovisioned", { Deployment: 2, Job: 0 }],
  ] as const) {
    it(`in the ${profile} profile`, async () => {
      const rendered = await helmTemplate({ valuesFiles: [CI_VALUES[profile]] });
      expect(rendered.stderr).toBe("");
      const scored = await kubeScore(rendered.stdout);
      expect({ critical: criticalFindings(scored.objects), stderr: scored.stderr }).toEqual({
        critical: [],
        stderr: "",
      });
      expect(scored.code).toBe(0);
      // Not vacuous: the workloads were scored, their user and group IDs and ephemeral
      // storage pass, and the pull-policy check is ignored (the image is pinned by digest).
      for (const [kind, count] of Object.entries(workloads)) {
        const ids = grade(scored.objects, kind, "container-security-context-user-group-id");
        expect(ids).toHaveLength(count);
        for (const g of ids) expect(g).toMatchObject({ grade: GRADE_ALL_OK, skipped: false });
        const storage = grade(
          scored.objects,
          kind,
          "container-ephemeral-storage-request-and-limit",
        );
        expect(storage).toHaveLength(count);
        for (const g of storage) expect(g).toMatchObject({ grade: GRADE_ALL_OK, skipped: false });
        const pull = grade(scored.objects, kind, "container-image-pull-policy");
        expect(pull).toHaveLength(count);
        for (const g of pull) expect(g).toMatchObject({ skipped: true });
      }
    });
  }
});
