// @ts-check
import { readFileSync } from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { layersPlugin } from "./tools/eslint/layers.js";

// The layers of src/ (README "Architecture"): each top folder and the folders it may import,
// pure decisions at the bottom, process composition and the CLI at the top. Enforced below by
// tools/eslint/layers.js on every file under src/.
const { layers, importedOnlyBy, implementations } = JSON.parse(
  readFileSync(new URL("./tools/eslint/layers.json", import.meta.url), "utf8"),
);

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      ".tools/**",
      ".image/**",
      "tools/k8s/**",
      "coverage/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "off",
      // client-node models are declared as classes but the API takes plain JSON objects.
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",
    },
  },
  {
    files: ["src/**/*.ts"],
    plugins: { occ: layersPlugin },
    rules: {
      "occ/layers": [
        "error",
        { root: import.meta.dirname, layers, importedOnlyBy, implementations },
      ],
      "max-lines": ["error", { max: 300 }],
    },
  },
  {
    files: ["**/*.js"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { URL: "readonly", process: "readonly", console: "readonly" } },
  },
);
