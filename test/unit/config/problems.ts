/** The messages of the problems `validateInstallationConfig` refuses a document with. */
import {
  ConfigurationError,
  validateInstallationConfig,
} from "../../../src/config/installation-config.js";

export function problemsOf(doc: unknown): string[] {
  try {
    validateInstallationConfig(doc, "test.yaml");
  } catch (err) {
    if (err instanceof ConfigurationError) return err.problems.map((p) => p.message);
    throw err;
  }
  throw new Error("expected the configuration to be refused");
}
