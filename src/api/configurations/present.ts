/** A Configuration record as the API shows it. */
import type { ConfigurationView } from "../../contract/configurations.js";
import type { ConfigurationRecord } from "../../store/configurations.js";

/** The response shape of one Configuration, from its metadata and its stored document. */
export function presentConfiguration(
  record: ConfigurationRecord,
  document: string,
): ConfigurationView {
  return {
    id: record.id,
    namespaceId: record.namespaceId,
    kind: record.kind,
    generation: record.generation,
    values: JSON.parse(document) as Record<string, unknown>,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
