// @ts-check
/**
 * The layer rule of `npm run lint`: a file under src/<folder>/ may import (relatively) only its
 * own folder and the folders its layer lists. The table is the README's architecture picture
 * (eslint.config.js passes it); an import that runs back up, or out of src/, is reported with
 * both folders and what the importing folder may use. `implementations` names subfolders (the
 * Kubernetes and OpenShell drivers) that only the listed top folders may import: the others
 * use the ports beside them.
 */
import { dirname, relative, resolve, sep } from "node:path";

/** The top folder of src/ that `file` lies in, or null outside src/. */
function folderOf(srcDir, file) {
  const rel = relative(srcDir, file);
  if (rel === "" || rel.startsWith("..") || rel.startsWith(sep)) return null;
  const parts = rel.split(sep);
  return parts.length === 1 ? "" : parts[0];
}

/** @type {import("eslint").Rule.RuleModule} */
export const layersRule = {
  meta: {
    type: "problem",
    docs: { description: "src/ folders import only the layers below them" },
    schema: [
      {
        type: "object",
        properties: {
          root: { type: "string" },
          importedOnlyBy: {
            type: "object",
            additionalProperties: { type: "array", items: { type: "string" } },
          },
          implementations: {
            type: "object",
            additionalProperties: { type: "array", items: { type: "string" } },
          },
          layers: {
            type: "object",
            additionalProperties: { type: "array", items: { type: "string" } },
          },
        },
        required: ["root", "layers"],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { root, layers, importedOnlyBy = {}, implementations = {} } = context.options[0];
    const srcDir = resolve(root, "src");
    const own = folderOf(srcDir, context.filename);
    if (own === null) return {};
    const may = layers[own];
    const check = (node, source) => {
      if (typeof source !== "string" || !source.startsWith(".")) return;
      const resolved = resolve(dirname(context.filename), source);
      const target = folderOf(srcDir, resolved);
      const inside = relative(srcDir, resolved).split(sep).join("/");
      const implementation = Object.keys(implementations).find((p) => inside.startsWith(`${p}/`));
      if (implementation !== undefined && !implementations[implementation].includes(own)) {
        context.report({
          node,
          message: `src/${own} may not import src/${implementation}, an implementation: import its port in src/drivers (only ${implementations[implementation].map((f) => `src/${f}`).join(", ")} import src/${implementation})`,
        });
        return;
      }
      if (target === own) return;
      if (may === undefined) {
        context.report({
          node,
          message: `src/${own} is not in the layer table (tools/eslint/layers.json): add it with the folders it may import`,
        });
      } else if (target === null) {
        context.report({
          node,
          message: `src/${own} imports "${source}", outside src/: product code imports only src/`,
        });
      } else if (!may.includes(target)) {
        context.report({
          node,
          message: `src/${own} may not import src/${target} (an upward or sideways import; see README "Architecture"). src/${own} may import: ${may.length === 0 ? "nothing outside itself" : may.map((f) => `src/${f}`).join(", ")}`,
        });
      } else if (
        importedOnlyBy[target] !== undefined &&
        !importedOnlyBy[target].includes(relative(srcDir, context.filename).split(sep).join("/"))
      ) {
        context.report({
          node,
          message: `only ${importedOnlyBy[target].map((f) => `src/${f}`).join(", ")} may import src/${target}; call the use case in src/services instead`,
        });
      }
    };
    const fromSource = (node) => check(node, node.source?.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) =>
        check(node, node.source.type === "Literal" ? node.source.value : undefined),
    };
  },
};

export const layersPlugin = { rules: { layers: layersRule } };
