/**
 * Lints source text with the project's own ESLint configuration as if it were the file at
 * `path` (relative to the repository root), and returns what ESLint reports as
 * `<rule>: <message>`. Type-aware rules are switched off for the fixtures only, since they are
 * not on disk.
 */
import { join } from "node:path";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";

export const root = join(import.meta.dirname, "../../..");

const eslint = new ESLint({
  cwd: root,
  overrideConfig: [
    {
      files: ["**/*.ts"],
      ...tseslint.configs.disableTypeChecked,
      languageOptions: { parserOptions: { projectService: false, project: null } },
    },
  ],
});

export async function lint(path: string, code: string): Promise<readonly string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? "parse"}: ${m.message}`);
}
