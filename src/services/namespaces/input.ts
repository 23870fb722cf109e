/**
 * Step 1 of `POST /namespaces` beyond the JSON schema (control-plane.md §2; placement.md §8):
 * the name is plain text of 1–200 characters, and `existingNamespace`, when given, is a
 * DNS-1123 label that is not reserved — which depends on the namespace the controller runs
 * in, so it is checked here rather than in the static schema. Services run it too, so a
 * caller that is not the HTTP API (bootstrap, the CLI) gets the same refusals.
 */
import type { Placement } from "../../domain/placement/placement.js";
import { validateExistingNamespace } from "../../domain/placement/reserved.js";
import { ServiceError } from "../errors.js";
import type { ErrorDetail } from "../../contract/errors.js";
import { MAX_NAMESPACE_NAME_LENGTH, type CreateNamespaceBody } from "../../contract/namespaces.js";
import { checkDisplayName, displayNameMessage } from "../../domain/input/display-names.js";
import { codePointLength } from "../../contract/formats.js";

/** What creating a Namespace takes: the body of `POST /namespaces`, whoever the caller is. */
export type CreateNamespaceInput = CreateNamespaceBody;

/** A validated request: the name and the placement it selects. */
export interface ValidCreateNamespace {
  readonly name: string;
  readonly placement: Placement;
}

/**
 * Validates `input`; throws `INVALID_REQUEST` listing every invalid field. Nothing about the
 * caller or the database is consulted, so this runs before authorization.
 */
export function validateCreateNamespace(
  input: CreateNamespaceInput,
  controllerNamespace: string,
): ValidCreateNamespace {
  const details: ErrorDetail[] = [];
  const messages: string[] = [];
  const length = codePointLength(input.name);
  const policy = checkDisplayName(input.name);
  if (length < 1 || length > MAX_NAMESPACE_NAME_LENGTH || !policy.ok) {
    details.push({
      path: "/body/name",
      code:
        length < 1
          ? "too_short"
          : length > MAX_NAMESPACE_NAME_LENGTH
            ? "too_long"
            : "invalid_format",
    });
    messages.push(
      policy.ok || length < 1 || length > MAX_NAMESPACE_NAME_LENGTH
        ? "name must be 1–200 characters of plain text"
        : displayNameMessage("name", policy.error).replace(/\.$/, ""),
    );
  }
  let placement: Placement = { mode: "managed" };
  if (input.existingNamespace !== undefined) {
    const checked = validateExistingNamespace(input.existingNamespace, controllerNamespace);
    if (checked.ok) {
      placement = { mode: "external", existingNamespace: checked.value };
    } else {
      const reserved = checked.error.rejection !== "not-dns-label";
      details.push({
        path: "/body/existingNamespace",
        code: reserved ? "reserved" : "invalid_format",
      });
      messages.push(checked.error.message);
    }
  }
  if (details.length > 0) {
    throw new ServiceError("INVALID_REQUEST", messages.join("; "), { details });
  }
  return { name: input.name, placement };
}
