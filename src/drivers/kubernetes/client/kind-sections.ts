/**
 * The object types of the kinds whose fields OCC (or its tests) read beyond the envelope, and
 * the check of each kind's top-level sections that `parseKindObject` runs after the envelope.
 * A section check answers why a body is not the kind's object (`""` when it is): only the
 * fields typed here are checked, and each is checked down to the depth its type promises.
 */
import type { GrantRule, ObjectMeta } from "../../../domain/index.js";
import type { Kind } from "./kinds.js";

/** Any object: the shared envelope, other fields as the API server sent them. */
export interface KubeObject {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata?: ObjectMeta | undefined;
  readonly [field: string]: unknown;
}

/** A ConfigMap or Secret: string data (base64 for a Secret). */
export interface DataObject extends KubeObject {
  readonly type?: string | undefined;
  readonly data?: Readonly<Record<string, string>> | undefined;
}

/** A Role or ClusterRole. */
export interface RoleObject extends KubeObject {
  readonly rules?: readonly GrantRule[] | undefined;
}

/** One subject of a binding. */
export interface BindingSubject {
  readonly kind?: string | undefined;
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
  readonly apiGroup?: string | undefined;
}

/** A RoleBinding or ClusterRoleBinding. */
export interface BindingObject extends KubeObject {
  readonly roleRef?:
    { readonly apiGroup?: string; readonly kind?: string; readonly name?: string } | undefined;
  readonly subjects?: readonly BindingSubject[] | undefined;
}

/** A core/v1 Event, the fields OCC records. */
export interface EventObject extends KubeObject {
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
  readonly type?: string | undefined;
  readonly firstTimestamp?: string | undefined;
  readonly lastTimestamp?: string | undefined;
  readonly source?: { readonly component?: string | undefined } | undefined;
}

type Body = Readonly<Record<string, unknown>>;

export function isRecord(v: unknown): v is Body {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export const optional = (v: unknown, check: (x: unknown) => boolean): boolean =>
  v === undefined || check(v);
export const isString = (v: unknown): boolean => typeof v === "string";
export const isStringMap = (v: unknown): boolean =>
  isRecord(v) && Object.values(v).every((x) => typeof x === "string");
const isStringList = (v: unknown): boolean =>
  Array.isArray(v) && v.every((x) => typeof x === "string");

/** True when every listed field of `v` is absent or a string. */
const stringFields = (v: unknown, fields: readonly string[]): boolean =>
  isRecord(v) && fields.every((f) => optional(v[f], isString));

const isRule = (v: unknown): boolean =>
  isRecord(v) &&
  isStringList(v["verbs"]) &&
  ["apiGroups", "resources", "resourceNames"].every((f) => optional(v[f], isStringList));

const NAME_FIELDS = ["apiGroup", "kind", "name", "namespace"];

function dataSection(body: Body): string {
  if (!optional(body["data"], isStringMap)) return "has data that is not a string map";
  return optional(body["type"], isString) ? "" : "has a type that is not a string";
}

function roleSection(body: Body): string {
  const rules = body["rules"];
  return optional(rules, (r) => Array.isArray(r) && r.every(isRule))
    ? ""
    : "has rules that are not policy rules";
}

function bindingSection(body: Body): string {
  if (!optional(body["roleRef"], (r) => stringFields(r, NAME_FIELDS))) {
    return "has a roleRef that is not a role reference";
  }
  const subjects = body["subjects"];
  return optional(subjects, (s) => Array.isArray(s) && s.every((x) => stringFields(x, NAME_FIELDS)))
    ? ""
    : "has subjects that are not subjects";
}

function eventSection(body: Body): string {
  const fields = ["reason", "message", "type", "firstTimestamp", "lastTimestamp"];
  if (!stringFields(body, fields)) return "has an event field that is not a string";
  return optional(body["source"], (s) => stringFields(s, ["component", "host"]))
    ? ""
    : "has a source that is not an event source";
}

function objectSections(body: Body): string {
  if (!optional(body["spec"], isRecord)) return "has a spec that is not an object";
  return optional(body["status"], isRecord) ? "" : "has a status that is not an object";
}

const SECTIONS: Partial<Record<Kind, (body: Body) => string>> = {
  ConfigMap: dataSection,
  Secret: dataSection,
  Role: roleSection,
  ClusterRole: roleSection,
  RoleBinding: bindingSection,
  ClusterRoleBinding: bindingSection,
  Event: eventSection,
};

/** Why the top-level sections of `body` are not those of a `kind` (`""` when they are). */
export function sectionProblem(kind: Kind, body: Body): string {
  return (SECTIONS[kind] ?? objectSections)(body);
}
