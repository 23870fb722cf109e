import { describe, expect, it } from "vitest";
import { groupRolesDiff, type GroupRole, type HeldGrant } from "../../../src/domain/index.js";

const MAPPING: readonly GroupRole[] = [
  { group: "admins", roleId: "role_admin", namespaceId: null },
  { group: "support", roleId: "role_viewer", namespaceId: "ns_support" },
  { group: "support-leads", roleId: "role_viewer", namespaceId: "ns_support" },
  { group: "support-leads", roleId: "role_editor", namespaceId: "ns_support" },
];
const held = (bindingId: string, roleId: string, namespaceId: string | null): HeldGrant => ({
  bindingId,
  roleId,
  namespaceId,
});

const cases: readonly {
  readonly name: string;
  readonly groups: readonly string[];
  readonly held: readonly HeldGrant[];
  readonly add: readonly string[];
  readonly remove: readonly string[];
}[] = [
  { name: "no groups, nothing held", groups: [], held: [], add: [], remove: [] },
  {
    name: "first sign-in in a mapped group",
    groups: ["admins"],
    held: [],
    add: ["role_admin@"],
    remove: [],
  },
  { name: "unmapped group grants nothing", groups: ["other"], held: [], add: [], remove: [] },
  {
    name: "already held: nothing to do",
    groups: ["admins"],
    held: [held("bnd_1", "role_admin", null)],
    add: [],
    remove: [],
  },
  {
    name: "left the group: binding removed",
    groups: [],
    held: [held("bnd_1", "role_admin", null)],
    add: [],
    remove: ["bnd_1"],
  },
  {
    name: "two groups, one grant, bound once",
    groups: ["support", "support-leads"],
    held: [],
    add: ["role_viewer@ns_support", "role_editor@ns_support"],
    remove: [],
  },
  {
    name: "still granted by another group: kept",
    groups: ["support-leads"],
    held: [held("bnd_2", "role_viewer", "ns_support")],
    add: ["role_editor@ns_support"],
    remove: [],
  },
  {
    name: "same role, other scope is another grant",
    groups: ["support"],
    held: [held("bnd_3", "role_viewer", null)],
    add: ["role_viewer@ns_support"],
    remove: ["bnd_3"],
  },
];

describe("groupRolesDiff", () => {
  for (const c of cases) {
    it(c.name, () => {
      const diff = groupRolesDiff(MAPPING, c.groups, c.held);
      expect(diff.add.map((g) => `${g.roleId}@${g.namespaceId ?? ""}`)).toEqual(c.add);
      expect(diff.remove.map((h) => h.bindingId)).toEqual(c.remove);
    });
  }
});
